import type { FlowEvent } from '../../harness/flow/history/index.ts';
import type { JudgedClassName, Verdict } from '../../properties/base/index.ts';
import type { DeliveryGuarantee } from '../../sinks/index.ts';
import { classReport, jobVerdict } from './class-report.ts';
import type { JobReport, ScenarioReport } from './job-report.ts';
import { insertPerformance } from './performance.ts';
import { storedJobReport } from './stored-job-report.ts';
import { NO_TALLY } from './tally.ts';
import type { TaggedEvent } from './timeline.ts';
import { runIdOf, seedOf } from '../../harness/base/index.ts';

/** Builds tagged history events the way the chaos job's merged `history.jsonl` holds them. */
export function tagged(scenario: string, run: string, at: number, event: FlowEvent, writer = 'worker-1'): TaggedEvent {
  return { ...event, at, writer, pid: 1, seq: at, scenario, run } as TaggedEvent;
}

const key = (queryId: string, attempt: number, batch = 1) => ({
  sink: 'events',
  partition: 0,
  batch,
  queryId,
  attempt,
});

/** One INSERT attempt: invoke at `start`, complete with `outcome` at `end` (no completion when `end` is undefined). */
export function attempt(
  scenario: string,
  run: string,
  queryId: string,
  attemptNo: number,
  start: number,
  end: number | undefined,
  outcome: 'ok' | 'failed' | 'unknown',
  rows = 3,
): TaggedEvent[] {
  const invoke = tagged(scenario, run, start, {
    type: 'insert-invoke',
    ...key(queryId, attemptNo),
    shard: null,
    endpoint: '127.10.1.1:8123',
    messageIds: Array.from({ length: rows }, (_, i) => `0-${queryId}-${i}`),
  });
  if (end === undefined) return [invoke];
  return [
    invoke,
    tagged(scenario, run, end, {
      type: 'insert-complete',
      ...key(queryId, attemptNo),
      outcome,
      startedAt: start,
      endedAt: end,
    }),
  ];
}

/**
 * Two runs of one class x scenario: run-0 is calm (two ok INSERTs, a reconfiguration); run-1 has a healed
 * reset_peer window with an unknown INSERT and its ok retry (drained after the heal), a crash cutting an attempt short,
 * a refusal, and a timeout window that was never healed, after which the settle phase's recovery stalled.
 */
export function sampleEvents(scenario = 'ClickHouseBatchingSink__unknown-outcome'): TaggedEvent[] {
  return [
    tagged(scenario, 'run-0', 1_000, {
      type: 'worker-start',
      worker: 'w1',
      sink: 'events',
      sinkClass: 'ClickHouseBatchingSink',
      partitions: [0],
    }),
    ...attempt(scenario, 'run-0', 'q1', 1, 1_100, 1_120, 'ok'),
    ...attempt(scenario, 'run-0', 'q2', 1, 1_200, 1_260, 'ok', 5),
    tagged(scenario, 'run-0', 1_240, {
      type: 'reconfigured',
      startedAt: 1_230,
      sink: 'events',
      partitions: [0],
      dynamic: { write_timeout: 4000 },
    }),
    tagged(scenario, 'run-1', 10_000, {
      type: 'worker-start',
      worker: 'w2',
      sink: 'events',
      sinkClass: 'ClickHouseBatchingSink',
      partitions: [0],
    }),
    tagged(
      scenario,
      'run-1',
      10_100,
      {
        type: 'fault-start',
        window: 1,
        fault: 'reset_peer',
        description: 'reset_peer on s1r1_client <downstream>',
        targets: ['s1r1_client'],
        effect: 'error',
      },
      'nemesis',
    ),
    ...attempt(scenario, 'run-1', 'q3', 1, 10_200, 10_210, 'unknown'),
    tagged(scenario, 'run-1', 10_500, { type: 'fault-end', window: 1, fault: 'reset_peer' }, 'nemesis'),
    ...attempt(scenario, 'run-1', 'q3', 2, 10_600, 10_640, 'ok'),
    tagged(
      scenario,
      'run-1',
      10_700,
      { ...RECOVERY, window: 1, healedAt: 10_490, healthyAt: 10_520, endedAt: 10_700 },
      'nemesis',
    ),
    ...attempt(scenario, 'run-1', 'q4', 1, 11_000, undefined, 'unknown'),
    tagged(scenario, 'run-1', 11_001, {
      type: 'crash',
      worker: 'w2',
      point: 'during-insert',
      partition: 0,
      batch: 2,
      occurrence: 1,
    }),
    tagged(scenario, 'run-1', 11_500, {
      type: 'partition-refused',
      sink: 'events',
      sinkClass: 'ClickHouseBatchingSink',
      partition: 0,
      code: 'TOPOLOGY_CHANGED',
      message: 'shards changed',
    }),
    tagged(
      scenario,
      'run-1',
      11_600,
      {
        type: 'fault-start',
        window: 2,
        fault: 'timeout',
        description: 'timeout <s2r1_client>',
        targets: ['s2r1_client'],
        effect: 'error',
      },
      'nemesis',
    ),
    ...attempt(scenario, 'run-1', 'q5', 1, 11_700, 12_000, 'failed'),
    tagged(
      scenario,
      'run-1',
      11_990,
      { ...RECOVERY, trigger: 'settle', healedAt: 11_620, healthyAt: 11_650, outcome: 'stalled', endedAt: 11_990 },
      'nemesis',
    ),
  ];
}

/** A drained episode's recovery, its bound from a spec of write_timeout 3 s and retry_backoff 100 ms. */
const RECOVERY = {
  type: 'recovery',
  trigger: 'episode',
  bound: { ms: 16_100, writeTimeoutMs: 3000, retryBackoffMs: 100, slackMs: 10_000 },
  outcome: 'drained',
} as const;

/** A scenario report of the ClickHouseBatchingSink that passed one run, with `over` set. */
export function scenarioReportOf(over: Partial<ScenarioReport> = {}): ScenarioReport {
  const sinkClass = over.sinkClass ?? 'ClickHouseBatchingSink';
  const name = over.name ?? 'unknown-outcome';
  return {
    name,
    sinkClass,
    verdict: 'pass',
    seed: seedOf(7),
    replayCommand: `npm run chaos -- --sink ${sinkClass} --scenario ${name} --seed 7`,
    runs: 1,
    shrinkRuns: 0,
    stopped: 'covered',
    durationMs: 1000,
    phases: { trafficMs: 0, healMs: 0, checkMs: 0 },
    tally: NO_TALLY,
    anomalies: [],
    giveUps: [],
    notes: [],
    commands: [],
    configurations: [],
    ...over,
  };
}

/** A job of one class (the scenarios' first one's) owing `guarantee`, its verdict the scenarios' merged. */
export function jobReportOf(
  scenarios: readonly ScenarioReport[],
  over: Partial<JobReport> = {},
  guarantee: DeliveryGuarantee = 'exactly-once',
): JobReport {
  const sinkClass = scenarios[0]?.sinkClass ?? 'ClickHouseBatchingSink';
  const classes = { [sinkClass]: classReport(guarantee, [...scenarios], insertPerformance([])) };
  return {
    runId: runIdOf('20261201-000000-0001'),
    backend: 'embedded',
    backendLimits: [],
    seed: seedOf(7),
    profile: 'ci',
    slice: null,
    startedAt: '2026-12-01T00:00:00.000Z',
    durationMs: 1000,
    clusterStartMs: 0,
    clusterMemory: null,
    verdict: jobVerdict(classes),
    classes,
    interrupted: false,
    selection: {
      classes: [sinkClass],
      scenarios: scenarios.map((scenario) => scenario.name),
      serverDedup: 'alternate',
      path: null,
    },
    commit: null,
    ...over,
  };
}

/** `run-result.json`'s text for a job of one class x scenario with the given verdict (what `npm run check` reads back). */
export function storedOneScenarioJob(sinkClass: JudgedClassName, scenario: string, verdict: Verdict): string {
  return storedJobReport(
    jobReportOf(
      [
        scenarioReportOf({
          name: scenario,
          sinkClass,
          verdict,
          seed: seedOf(1),
          replayCommand: `npm run chaos -- --sink ${sinkClass} --scenario ${scenario} --seed 1`,
        }),
      ],
      {
        seed: seedOf(1),
      },
    ),
  );
}
