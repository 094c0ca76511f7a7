import type { RunJudgement } from '../../properties/judge/index.ts';
import { NO_TALLY, type Tally } from './tally.ts';

/**
 * The tally of one run; a run the harness failed before its check counts only its server-dedup
 * setting (`runs` counts checked runs). `alternatesDedup`: its scenario's runs alternate ClickHouse's block
 * dedup (token-less classes; every class on a table whose dedup is under test), so the run counts
 * as one with it off or on.
 */
export function runTally(check: RunJudgement | undefined, serverDedupOff: boolean, alternatesDedup: boolean): Tally {
  const serverDedup = alternatesDedup
    ? {
        offRuns: serverDedupOff ? 1 : 0,
        onRuns: serverDedupOff ? 0 : 1,
        acceptedTwice: check?.evidence.acceptedTwice ?? 0,
      }
    : null;
  if (check === undefined) return { ...NO_TALLY, serverDedup };
  const { evidence } = check;
  const seen = evidence.sightings;
  const crashes = [...evidence.crashes.values()].reduce((total, n) => total + n, 0);
  return {
    runs: 1,
    violations: check.verdict === 'violation' ? 1 : 0,
    counts: check.counts,
    inserts: check.inserts,
    unknownOutcomes: {
      landed: seen.unknownLanded,
      absent: seen.unknownAbsent,
      unresolved: evidence.unknownOutcomes - seen.unknownLanded - seen.unknownAbsent,
    },
    replays: seen.replay,
    dedupHits: seen.dedupHit,
    refusals: seen.refusal,
    serverDedup,
    // Sink crashes under the catalogue's name for them.
    faults: { ...Object.fromEntries(evidence.faultsFired), ...(crashes > 0 ? { sink_crash: crashes } : {}) },
    giveUps: check.results.find((result) => result.checker === 'give-up')?.notes?.length ?? 0,
    boundaries: Object.fromEntries(evidence.boundaries),
  };
}
