import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import type { Observations } from './observations.ts';

/**
 * What the servers' query_log must show for the other log-based checks to mean anything:
 * - every INSERT it logged into the run's database is an attempt of the history: one the history
 *   does not know is a write outside the sink's observer (`unrecorded-insert`), which no token,
 *   outcome or replay check could have seen;
 * - every attempt the server answered is in its replica's log, unless a restart wiped it: a log
 *   that lacks one is incomplete (`log_queries` off, rows lost), so the run could not be verified
 *   and is `infra-error` with the reason — never a pass, never a verdict on the sink.
 */
export function serverLogChecker(observations: Observations): CheckResult {
  const attempted = new Set(observations.attempts.map((attempt) => attempt.queryId));
  const unrecorded = [...observations.serverFinished.keys()].filter((queryId) => !attempted.has(queryId));
  const result = resultOf('server-log', [anomaly('unrecorded-insert', unrecorded)]);
  const unlogged = observations.unloggedAttempts;
  if (result.verdict === 'violation' || unlogged.length === 0) return result;
  return {
    ...result,
    verdict: 'infra-error',
    notes: [
      `query_log is incomplete: ${unlogged.length} INSERT(s) the server answered are missing from their replica's log (${unlogged.slice(0, 3).join('; ')}); its checks cannot vouch for this run`,
    ],
  };
}
