import { HarnessError } from '../harness/base/index.ts';
import { TREND_LINE_VERSION, type JobReport } from '../reports/results/index.ts';

export function parseDuration(text: string): number {
  const match = /^(\d+)(s|m|h)$/.exec(text);
  if (!match) throw new HarnessError('CLI_USAGE', `--duration takes a number with s, m or h (e.g. 1h), got '${text}'`);
  return Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h'];
}

/** Peak RSS per cluster process; null on a backend that does not see its processes. */
function peakRss(run: JobReport): Record<string, number> | null {
  return run.clusterMemory === null
    ? null
    : Object.fromEntries(Object.entries(run.clusterMemory).map(([member, memory]) => [member, memory.peakRssMiB]));
}

/**
 * One line of `soak-trend.jsonl`: the figures a nightly dashboard plots across iterations.
 * `reproduced`: for an iteration that did not pass, whether re-running its failing scenarios with
 * the same seed and path failed the same way (null when there was nothing to re-run).
 */
export function trendLine(
  iteration: number,
  run: JobReport,
  runnerRssMiB: number,
  reproduced: boolean | null = null,
): Record<string, unknown> {
  const classes = Object.fromEntries(
    Object.entries(run.classes).map(([name, result]) => [
      name,
      {
        verdict: result.verdict,
        ...result.tally.counts,
        inserts: result.tally.inserts,
        insert_latency_ms: result.performance.latencyMs,
        rows_per_second: result.performance.rowsPerSecond,
      },
    ]),
  );
  return {
    version: TREND_LINE_VERSION,
    iteration,
    run_id: run.runId,
    seed: run.seed,
    verdict: run.verdict,
    duration_ms: run.durationMs,
    rss_mib: runnerRssMiB,
    cluster_peak_rss_mib: peakRss(run),
    reproduced,
    clusters: [
      ...new Set(
        Object.values(run.classes).flatMap((result) => result.scenarios.flatMap((scenario) => scenario.cluster ?? [])),
      ),
    ],
    classes,
  };
}
