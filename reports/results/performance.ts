import type { RunTimeline } from './timeline.ts';

export interface LatencyQuantiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/**
 * How fast a class wrote under the chaos it met: latency of its successful INSERT attempts, and
 * rows in successful INSERTs per second of the runs' insert activity (first attempt to last
 * completion, per run). Faults are part of every run, so these are trend figures for the soak
 * dashboard and a sanity check in the report, not a benchmark.
 */
export interface InsertPerformance {
  readonly attempts: number;
  readonly okAttempts: number;
  readonly latencyMs: LatencyQuantiles | null;
  readonly rowsPerSecond: number | null;
  readonly recovery: RecoveryFigures;
}

export interface MedianAndTail {
  readonly p50: number;
  readonly p95: number;
}

/**
 * How fast a class made progress again after the faults healed, over every heal the executor
 * watched (each episode's, and the settle phase's): heal → the first INSERT that ended `ok`
 * (heals with something pending), heal → drained (heals it drained within its bound), and how
 * many stalled past their bound.
 */
export interface RecoveryFigures {
  readonly heals: number;
  readonly stalled: number;
  readonly firstOkMs: MedianAndTail | null;
  readonly drainedMs: MedianAndTail | null;
  /** The largest bound any of those heals gave the sink. */
  readonly boundMs: number | null;
}

/** Nearest-rank quantile of an ascending list. */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

export function insertPerformance(timelines: readonly RunTimeline[]): InsertPerformance {
  const inserts = timelines.flatMap((timeline) => timeline.inserts);
  const ok = inserts.filter((insert) => insert.outcome === 'ok');
  const latencies = ok.map((insert) => insert.end - insert.start).sort((a, b) => a - b);
  let activeMs = 0;
  for (const timeline of timelines) {
    if (timeline.inserts.length === 0) continue;
    const first = Math.min(...timeline.inserts.map((insert) => insert.start));
    const last = Math.max(...timeline.inserts.map((insert) => insert.end));
    activeMs += last - first;
  }
  const rows = ok.reduce((total, insert) => total + insert.rows, 0);
  return {
    attempts: inserts.length,
    okAttempts: ok.length,
    latencyMs:
      latencies.length === 0
        ? null
        : {
            p50: quantile(latencies, 0.5),
            p95: quantile(latencies, 0.95),
            p99: quantile(latencies, 0.99),
            max: latencies[latencies.length - 1] ?? 0,
          },
    rowsPerSecond: activeMs > 0 ? (rows * 1000) / activeMs : null,
    recovery: recoveryFigures(timelines),
  };
}

function medianAndTail(values: readonly number[]): MedianAndTail | null {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
}

export function recoveryFigures(timelines: readonly RunTimeline[]): RecoveryFigures {
  const recoveries = timelines.flatMap((timeline) => timeline.recoveries);
  const defined = (values: readonly (number | undefined)[]) => values.filter((value) => value !== undefined);
  return {
    heals: recoveries.length,
    stalled: recoveries.filter((recovery) => recovery.outcome === 'stalled').length,
    firstOkMs: medianAndTail(defined(recoveries.map((recovery) => recovery.firstOkMs))),
    drainedMs: medianAndTail(defined(recoveries.map((recovery) => recovery.drainedMs))),
    boundMs: recoveries.length === 0 ? null : Math.max(...recoveries.map((recovery) => recovery.bound.ms)),
  };
}
