import type fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seedOf } from '../../harness/base/index.ts';
import type { FaultType } from '../../harness/flow/history/index.ts';
import type { Coverage, DeliveryCounts, Evidence } from '../../properties/checkers/index.ts';
import { CoverageLedger, NO_EVIDENCE } from '../../properties/checkers/coverage-ledger.ts';
import type { Verdict } from '../../properties/base/index.ts';
import type { ScenarioDefinition } from '../scenarios/index.ts';
import type { RunJudgement } from '../../properties/judge/index.ts';
import type { ExecutedRun, ScenarioOutcome } from './executed-run.ts';
import type { RunInput } from './run-input.ts';
import { scenarioReport } from './scenario-report.ts';

const scenario = { name: 'unknown-outcome' } as ScenarioDefinition;
const declared: Coverage = { faults: ['reset_peer'], unknownAbsent: true };
const counts = (n: number): DeliveryCounts => ({
  attempted: n,
  acknowledged: n,
  lost: 0,
  duplicated: 0,
  unexpected: 0,
  recovered: 0,
  gaveUp: 0,
});

function run(
  index: number,
  phase: ExecutedRun['phase'],
  verdict: Verdict,
  evidence: Partial<Evidence> = {},
  n = 10,
  category = 'lost',
): ExecutedRun {
  const check = {
    verdict,
    counts: counts(n),
    results:
      verdict === 'violation'
        ? [{ checker: 'total-queue', verdict, anomalies: [{ category, count: 1, examples: ['1-0-3'] }] }]
        : [],
    coverage: declared,
    evidence: { ...NO_EVIDENCE, ...evidence },
    inserts: { ok: n, failed: 0, unknown: 0 },
  } as RunJudgement;
  return {
    index,
    phase,
    input: { schedule: [], spec: { dynamic_parameters: { async_insert: index === 1 } } } as unknown as RunInput,
    serverDedupOff: index % 2 === 0,
    check,
    durationMs: 1_000,
    phases: { trafficMs: 0, healMs: 0, checkMs: 0 },
  };
}

function outcome(
  runs: ExecutedRun[],
  details: Partial<fc.RunDetails<[RunInput]>> = {},
  counterexample = runs.filter((r) => r.check?.verdict === 'violation').at(-1)?.index,
): ScenarioOutcome {
  const ledger = new CoverageLedger();
  for (const r of runs.filter((x) => x.phase === 'explore'))
    if (r.check) ledger.add(r.check.coverage, r.check.evidence);
  return {
    runs,
    ledger,
    stopped: ledger.complete ? 'covered' : 'budget-spent',
    shrinkTruncated: false,
    counterexample,
    details: { failed: false, interrupted: false, counterexamplePath: null, ...details } as fc.RunDetails<[RunInput]>,
  };
}

const fired = { faultsFired: new Map<FaultType, number>([['reset_peer', 1]]) };

describe('scenarioReport', () => {
  it('passes once the runs together showed everything declared', () => {
    const result = scenarioReport(
      scenario,
      'ClickHouseBatchingSink',
      outcome([
        run(0, 'explore', 'inconclusive', fired),
        run(1, 'explore', 'pass', { sightings: { ...NO_EVIDENCE.sightings, unknownAbsent: 1 } }),
      ]),
      seedOf(7),
    );
    expect(result.verdict).toBe('pass');
    expect([result.runs, result.shrinkRuns, result.stopped]).toEqual([2, 0, 'covered']);
  });

  it('groups the runs by configuration, with exactly-once degraded where a single-host table lacks block dedup', () => {
    const plain = { name: 'plain-merge-tree', target: 'single-host-merge-tree' } as ScenarioDefinition;
    const result = scenarioReport(
      plain,
      'ClickHouseBatchingSink',
      outcome([run(0, 'explore', 'pass', fired), run(1, 'explore', 'pass', fired), run(2, 'explore', 'pass', fired)]),
      seedOf(7),
    );
    expect(result.configurations.map((row) => [row.configuration, row.owed, row.tally.runs])).toEqual([
      ['MergeTree, 1 host per shard, no dedup window · async_insert off', 'at-least-once', 2],
      ['MergeTree, 1 host per shard, non_replicated_deduplication_window · async_insert on', 'exactly-once', 1],
    ]);
    // The replay keeps the failing run's table: every class alternates block dedup on a single host.
    expect(result.tally.serverDedup).toEqual({ offRuns: 2, onRuns: 1, acceptedTwice: 0 });
  });

  it('is inconclusive when the budget ran out, naming what never happened', () => {
    const result = scenarioReport(
      scenario,
      'ClickHouseBatchingSink',
      outcome([run(0, 'explore', 'inconclusive', fired)]),
      seedOf(7),
    );
    expect(result.verdict).toBe('inconclusive');
    expect(result.notes).toEqual([
      'no unknown-outcome INSERT that never reached the server (unknown → absent) (the budget ran out after 1 run(s) in 1 s)',
    ]);
  });

  it('reports a violation with the counterexample’s figures only, shrink steps counted apart', () => {
    const runs = [
      run(0, 'explore', 'pass', fired, 10),
      run(1, 'explore', 'violation', fired, 20),
      run(2, 'shrink', 'violation', fired, 5),
      run(3, 'shrink', 'pass', fired, 7),
    ];
    const result = scenarioReport(
      scenario,
      'AtLeastOnceClickHouseSink',
      outcome(runs, { failed: true, counterexamplePath: '1:0' }),
      seedOf(7),
      'reports/r1/AtLeastOnceClickHouseSink__unknown-outcome',
    );
    expect(result.verdict).toBe('violation');
    expect(result.scheduleReplayCommand).toBe(
      'npm run chaos -- --sink AtLeastOnceClickHouseSink --scenario unknown-outcome --schedule reports/r1/AtLeastOnceClickHouseSink__unknown-outcome/run-2/schedule.json',
    );
    expect([result.runs, result.shrinkRuns]).toEqual([2, 2]);
    expect(result.tally.counts.attempted).toBe(5);
    expect(result.replayCommand).toBe(
      'npm run chaos -- --sink AtLeastOnceClickHouseSink --scenario unknown-outcome --seed 7 --path 1:0 --server-dedup off',
    );
  });

  it('reports the counterexample the exploration took, and a shrink step that failed otherwise as a note', () => {
    const runs = [
      run(0, 'explore', 'violation', fired, 20, 'duplicated'),
      run(1, 'shrink', 'violation', fired, 5, 'lost'),
      run(2, 'shrink', 'pass', fired, 7),
    ];
    const result = scenarioReport(scenario, 'AtLeastOnceClickHouseSink', outcome(runs, { failed: true }, 0), seedOf(7));
    expect(result.verdict).toBe('violation');
    expect(result.anomalies.map((a) => a.category)).toEqual(['duplicated']);
    expect(result.tally.counts.attempted).toBe(20);
    expect(result.notes).toEqual([
      "shrink step run 1 failed otherwise (lost): not taken as the counterexample, which keeps the first violation's anomalies; its schedule is in run-1/schedule.json",
    ]);
  });

  it('a harness failure of an exploring run is infra-error, never a pass', () => {
    const broken: ExecutedRun = {
      ...run(1, 'explore', 'pass'),
      check: undefined,
      infraError: 'replica s1r2 could not sync',
    } as ExecutedRun;
    const result = scenarioReport(
      scenario,
      'ClickHouseBatchingSink',
      outcome([
        run(0, 'explore', 'pass', { ...fired, sightings: { ...NO_EVIDENCE.sightings, unknownAbsent: 1 } }),
        broken,
      ]),
      seedOf(7),
    );
    expect(result.verdict).toBe('infra-error');
    expect(result.notes).toEqual(['run 1: replica s1r2 could not sync']);
  });

  it('an interrupted check is inconclusive even when what ran covered everything', () => {
    const result = scenarioReport(
      scenario,
      'ClickHouseBatchingSink',
      outcome([run(0, 'explore', 'pass', { ...fired, sightings: { ...NO_EVIDENCE.sightings, unknownAbsent: 1 } })], {
        interrupted: true,
      }),
      seedOf(7),
    );
    expect(result.verdict).toBe('inconclusive');
  });
});
