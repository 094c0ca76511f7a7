import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import type { Observations } from './observations.ts';

/**
 * An INSERT the sink took as `ok` must have finished on the server. One its replica logged as
 * failed (query_log `ExceptionWhileProcessing`) was an error the client read as success — as when
 * ClickHouse, having failed to read a slow or cut request body, answers 200 with the error in
 * `X-ClickHouse-Exception-Code` (ClickHouse #65117). Its rows are then missing while the sink
 * moved on; this names the attempt even where another replay happened to hide the loss.
 */
export function outcomeChecker(observations: Observations): CheckResult {
  const failedOnServer = observations.attempts
    .filter((attempt) => attempt.outcome === 'ok' && observations.serverFinished.get(attempt.queryId) === false)
    .map((attempt) => `${attempt.queryId} (partition ${attempt.partition}, batch ${attempt.batch})`);
  return resultOf('outcome', [anomaly('ok-but-failed-on-server', failedOnServer)]);
}
