import { classConfigurations, type JobReport } from '../results/index.ts';

/** The version of `summary.json`'s shape, for the CI jobs and dashboards that read it: raised when a field changes meaning. */
export const SUMMARY_VERSION = 1;

/** `summary.json`: the machine-readable verdict, in the shape CI and dashboards read. */
export function summaryJson(run: JobReport): string {
  const classes = Object.fromEntries(
    Object.entries(run.classes).map(([name, result]) => [
      name,
      {
        guarantee: result.guarantee,
        verdict: result.verdict,
        counts: result.tally.counts,
        inserts: result.tally.inserts,
        replays: result.tally.replays,
        dedup_hits: result.tally.dedupHits,
        refusals: result.tally.refusals,
        unknown_outcomes: result.tally.unknownOutcomes,
        server_dedup:
          result.tally.serverDedup === null
            ? null
            : {
                off_runs: result.tally.serverDedup.offRuns,
                on_runs: result.tally.serverDedup.onRuns,
                accepted_twice: result.tally.serverDedup.acceptedTwice,
              },
        faults: result.tally.faults,
        give_ups: result.tally.giveUps,
        configurations: classConfigurations(result.scenarios).map((row) => ({
          configuration: row.configuration,
          guarantee_owed: row.owed,
          runs: row.tally.runs,
          violations: row.tally.violations,
          lost: row.tally.counts.lost,
          duplicated: row.tally.counts.duplicated,
          dedup_hits: row.tally.dedupHits,
          ...(row.view === undefined
            ? {}
            : {
                view: {
                  guarantee_owed: row.view.owed,
                  violations: row.view.tally.violations,
                  lost: row.view.tally.counts.lost,
                  duplicated: row.view.tally.counts.duplicated,
                },
              }),
        })),
        performance: {
          attempts: result.performance.attempts,
          ok_attempts: result.performance.okAttempts,
          insert_latency_ms: result.performance.latencyMs,
          rows_per_second: result.performance.rowsPerSecond,
          recovery: {
            heals: result.performance.recovery.heals,
            stalled: result.performance.recovery.stalled,
            heal_to_first_ok_insert_ms: result.performance.recovery.firstOkMs,
            heal_to_drained_ms: result.performance.recovery.drainedMs,
            largest_bound_ms: result.performance.recovery.boundMs,
          },
        },
        scenarios: result.scenarios.map((scenario) => ({
          name: scenario.name,
          verdict: scenario.verdict,
          seed: scenario.seed,
          path: scenario.path ?? null,
          replay_command: scenario.replayCommand,
          cluster: scenario.cluster ?? null,
          schedule_replay_command: scenario.scheduleReplayCommand ?? null,
          runs: scenario.runs,
          shrink_runs: scenario.shrinkRuns,
          stopped: scenario.stopped,
          duration_ms: scenario.durationMs,
          phases_ms: scenario.phases,
          counts: scenario.tally.counts,
          inserts: scenario.tally.inserts,
          replays: scenario.tally.replays,
          dedup_hits: scenario.tally.dedupHits,
          refusals: scenario.tally.refusals,
          unknown_outcomes: scenario.tally.unknownOutcomes,
          server_dedup:
            scenario.tally.serverDedup === null
              ? null
              : {
                  off_runs: scenario.tally.serverDedup.offRuns,
                  on_runs: scenario.tally.serverDedup.onRuns,
                  accepted_twice: scenario.tally.serverDedup.acceptedTwice,
                },
          faults: scenario.tally.faults,
          boundaries: scenario.tally.boundaries,
          anomalies: scenario.anomalies,
          give_ups: scenario.giveUps,
          notes: scenario.notes,
          commands: scenario.commands,
          // What readers saw (measured, not judged): the staged loader's per operation, a sink's per way of reading.
          reads: (scenario.reads ?? []).map((figures) => ({
            read: figures.operation,
            reads: figures.reads,
            failed_reads: figures.failedReads,
            saw_part: figures.fractured,
            loads_over_several_tables_or_shards: figures.loads,
            split_reads: figures.splitReads,
            window_ms: figures.windowMs,
            ...(figures.stale === undefined ? {} : { missed_acknowledged: figures.stale }),
            ...(figures.wentBack === undefined ? {} : { lacked_row_seen_before: figures.wentBack }),
            ...(figures.sequential === undefined ? {} : { sequential_consistency: figures.sequential }),
          })),
        })),
      },
    ]),
  );
  return `${JSON.stringify(
    {
      version: SUMMARY_VERSION,
      run_id: run.runId,
      backend: run.backend,
      backend_limits: run.backendLimits,
      fault_proxy: run.faultProxy ?? null,
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
