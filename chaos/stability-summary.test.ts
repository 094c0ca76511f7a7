import { describe, expect, it } from 'vitest';
import { type RunId, seedOf } from '../harness/base/index.ts';
import { NO_TALLY, type ClassReport, type JobReport, type ScenarioReport } from '../reports/results/index.ts';
import { declaresBothKinds, stabilityTable, summarizeStability } from './stability-summary.ts';

const scenario = (over: Partial<ScenarioReport>): ScenarioReport => ({
  name: 'unknown-outcome',
  sinkClass: 'AtLeastOnceClickHouseSink',
  verdict: 'pass',
  seed: seedOf(1),
  replayCommand: '',
  runs: 1,
  shrinkRuns: 0,
  stopped: 'covered',
  durationMs: 1000,
  phases: { trafficMs: 0, healMs: 0, checkMs: 0 },
  tally: {
    ...NO_TALLY,
    counts: { attempted: 0, acknowledged: 0, lost: 0, duplicated: 0, unexpected: 0, recovered: 0, gaveUp: 0 },
    inserts: { ok: 0, failed: 0, unknown: 0 },
    replays: 0,
    dedupHits: 0,
    refusals: 0,
    unknownOutcomes: { landed: 1, absent: 1, unresolved: 0 },
    serverDedup: { offRuns: 1, onRuns: 0, acceptedTwice: 0 },
    faults: {},
  },
  anomalies: [],
  giveUps: [],
  notes: [],
  commands: [],
  configurations: [],
  ...over,
});

const run = (seed: number, scenarios: ScenarioReport[]): JobReport => {
  const verdict = scenarios.every((s) => s.verdict === 'pass') ? 'pass' : 'inconclusive';
  const result = {
    verdict,
    scenarios,
    tally: {
      unknownOutcomes: {
        landed: scenarios.reduce((t, s) => t + s.tally.unknownOutcomes.landed, 0),
        absent: scenarios.reduce((t, s) => t + s.tally.unknownOutcomes.absent, 0),
        unresolved: 0,
      },
    },
  } as unknown as ClassReport;
  return {
    runId: `r${seed}` as RunId,
    backend: 'embedded',
    backendLimits: [],
    seed: seedOf(seed),
    profile: 'ci',
    slice: null,
    startedAt: '',
    durationMs: seed * 1000,
    clusterStartMs: 0,
    clusterMemory: null,
    verdict,
    classes: { AtLeastOnceClickHouseSink: result },
    interrupted: false,
    selection: { classes: [], scenarios: [], serverDedup: 'alternate', path: null },
    commit: null,
  };
};

describe('summarizeStability', () => {
  it('counts verdicts per class, runs per scenario, both kinds of unknown outcome, and names every seed that did not pass', () => {
    const runs = [
      run(10, [
        scenario({ runs: 1 }),
        scenario({
          name: 'sink-crash',
          runs: 1,
          tally: { ...NO_TALLY, unknownOutcomes: { landed: 0, absent: 0, unresolved: 0 } },
        }),
      ]),
      run(20, [
        scenario({
          runs: 3,
          verdict: 'inconclusive',
          notes: ['no unknown-outcome INSERT that never reached the server (unknown → absent)'],
          tally: { ...NO_TALLY, unknownOutcomes: { landed: 2, absent: 0, unresolved: 0 } },
        }),
      ]),
    ];
    const stability = summarizeStability(runs, (name) => name === 'unknown-outcome');
    expect(stability.verdicts).toEqual({ pass: 1, violation: 0, inconclusive: 1, interrupted: 0, 'infra-error': 0 });
    expect(stability.wallSeconds).toEqual({ median: 15, max: 20 });
    const c = stability.classes.AtLeastOnceClickHouseSink!;
    expect(c.runsPerScenario).toEqual({ median: 1, max: 3 });
    expect([c.unknownLanded, c.unknownAbsent, c.seedsMissingAKind]).toEqual([3, 1, 1]);
    expect(c.notes).toEqual([
      'seed 20 unknown-outcome: inconclusive — no unknown-outcome INSERT that never reached the server (unknown → absent)',
    ]);
    expect(stabilityTable(stability)).toContain('| AtLeastOnceClickHouseSink | 1 | 0 | 1 | 0 | 1 / 3 | 3 / 1 | 1 |');
  });
});

describe('declaresBothKinds', () => {
  it('asks the class its scenario owes both kinds, not any class one kind', () => {
    expect(declaresBothKinds('unknown-outcome', 'ClickHouseBatchingSink')).toBe(true);
    expect(declaresBothKinds('server-windows', 'ClickHouseBatchingSink')).toBe(false);
    expect(declaresBothKinds('retry-under-fault', 'AtLeastOnceClickHouseSink')).toBe(false);
    expect(declaresBothKinds('kafka-rebalance', 'ClickHouseKafkaEngine')).toBe(false);
  });
});
