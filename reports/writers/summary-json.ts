import { classConfigurations } from '../aggregate.ts';
import type { RunResult } from '../run-result.ts';

/** `summary.json`: the machine-readable verdict, in the shape CI and dashboards read. */
export function summaryJson(run: RunResult): string {
  const classes = Object.fromEntries(
    Object.entries(run.classes).map(([name, result]) => [
      name,
      {
        guarantee: result.guarantee,
        verdict: result.verdict,
        counts: result.counts,
        inserts: result.inserts,
        replays: result.replays,
        dedup_hits: result.dedupHits,
        refusals: result.refusals,
        unknown_outcomes: result.unknownOutcomes,
        server_dedup:
          result.serverDedup === null
            ? null
            : {
                off_runs: result.serverDedup.offRuns,
                on_runs: result.serverDedup.onRuns,
                accepted_twice: result.serverDedup.acceptedTwice,
              },
        faults: result.faults,
        give_ups: result.giveUps,
        configurations: classConfigurations(result.scenarios).map((row) => ({
          configuration: row.configuration,
          guarantee_owed: row.owed,
          runs: row.runs,
          violations: row.violations,
          lost: row.lost,
          duplicated: row.duplicated,
          dedup_hits: row.dedupHits,
          ...(row.view === undefined
            ? {}
            : {
                view: {
                  guarantee_owed: row.view.owed,
                  violations: row.view.violations,
                  lost: row.view.lost,
                  duplicated: row.view.duplicated,
                },
              }),
        })),
        performance: {
          attempts: result.performance.attempts,
          ok_attempts: result.performance.okAttempts,
          insert_latency_ms: result.performance.latencyMs,
          rows_per_second: result.performance.rowsPerSecond,
        },
        scenarios: result.scenarios.map((scenario) => ({
          name: scenario.name,
          verdict: scenario.verdict,
          seed: scenario.seed,
          path: scenario.path ?? null,
          replay_command: scenario.replayCommand,
          runs: scenario.runs,
          shrink_runs: scenario.shrinkRuns,
          stopped: scenario.stopped,
          duration_ms: scenario.durationMs,
          phases_ms: scenario.phases,
          counts: scenario.counts,
          inserts: scenario.inserts,
          replays: scenario.replays,
          dedup_hits: scenario.dedupHits,
          refusals: scenario.refusals,
          unknown_outcomes: scenario.unknownOutcomes,
          server_dedup:
            scenario.serverDedup === null
              ? null
              : {
                  off_runs: scenario.serverDedup.offRuns,
                  on_runs: scenario.serverDedup.onRuns,
                  accepted_twice: scenario.serverDedup.acceptedTwice,
                },
          faults: scenario.faults,
          anomalies: scenario.anomalies,
          give_ups: scenario.giveUps,
          notes: scenario.notes,
          commands: scenario.commands,
        })),
      },
    ]),
  );
  return `${JSON.stringify(
    {
      run_id: run.runId,
      backend: run.backend,
      backend_limits: run.backendLimits,
      seed: run.seed,
      profile: run.profile,
      slice: run.slice,
      started_at: run.startedAt,
      duration_ms: run.durationMs,
      cluster_start_ms: run.clusterStartMs,
      cluster_memory_mib:
        run.clusterMemory === null
          ? null
          : Object.fromEntries(
              Object.entries(run.clusterMemory).map(([member, memory]) => [
                member,
                { rss: memory.rssMiB, peak_rss: memory.peakRssMiB },
              ]),
            ),
      verdict: run.verdict,
      classes,
    },
    null,
    2,
  )}\n`;
}
