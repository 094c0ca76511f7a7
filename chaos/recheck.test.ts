import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NO_EVIDENCE } from '../properties/checkers/coverage-ledger.ts';
import type { Verdict } from '../properties/base/index.ts';
import { scenarioDirName } from '../reports/results/index.ts';
import { storedOneScenarioJob } from '../reports/results/test-support.ts';
import { judge, type RunJudgement } from '../properties/judge/index.ts';
import { storeRun } from './executor/testing/stored-run.ts';
import { agrees, recheckReport } from './recheck.ts';
import { writeEngineRun } from './kafka-engine/engine-record.ts';
import { expectedRow } from './kafka-engine/source.ts';
import { NO_DELIVERIES } from '../properties/checkers/index.ts';

// The checkers are not under test here: each stored run re-checks as `rechecked` says, declaring
// nothing, so the scenario rule alone decides.
vi.mock('../properties/judge/index.ts', async (original) => ({
  ...(await original<typeof import('../properties/judge/index.ts')>()),
  judge: vi.fn(),
}));

let report = '';
beforeEach(() => {
  report = mkdtempSync(join(tmpdir(), 'recheck-'));
});
afterEach(() => rmSync(report, { recursive: true, force: true }));

/** A report directory with one scenario: its recorded verdict, runs stored with a check, run directories without one. */
function storedScenario(
  recorded: Verdict,
  checked: readonly string[],
  unchecked: readonly string[],
  rechecked: Verdict,
) {
  vi.mocked(judge).mockReturnValue({
    verdict: rechecked,
    results: [],
    coverage: { faults: [] },
    evidence: NO_EVIDENCE,
  } as unknown as RunJudgement);
  const dir = join(report, scenarioDirName('ClickHouseBatchingSink', 'unknown-outcome'));
  for (const run of checked) storeRun(join(dir, run), { verdict: rechecked });
  for (const run of unchecked) mkdirSync(join(dir, run), { recursive: true });
  writeFileSync(
    join(report, 'run-result.json'),
    storedOneScenarioJob('ClickHouseBatchingSink', 'unknown-outcome', recorded),
  );
  const [result] = recheckReport(report);
  return result!;
}

describe('the re-check of a scenario the harness or a signal stopped', () => {
  it('judges a run directory without a check as the harness failure it was: a stored infra-error agrees', () => {
    const scenario = storedScenario('infra-error', ['run-0'], ['run-1'], 'pass');
    expect([scenario.rechecked, scenario.unjudged]).toEqual(['infra-error', ['run-1']]);
    expect(agrees(scenario)).toBe(true);
  });

  it('takes an interruption from the record: a stored interrupted scenario agrees', () => {
    const scenario = storedScenario('interrupted', ['run-0'], ['run-1'], 'pass');
    expect(scenario.rechecked).toBe('interrupted');
    expect(agrees(scenario)).toBe(true);
  });

  it('takes a harness failure that left no run without a check from the record', () => {
    const scenario = storedScenario('infra-error', ['run-0'], [], 'pass');
    expect(scenario.rechecked).toBe('infra-error');
    expect(agrees(scenario)).toBe(true);
  });

  it('still reports a violation the stored runs show over a recorded infra-error, as a difference', () => {
    const scenario = storedScenario('infra-error', ['run-0'], ['run-1'], 'violation');
    expect(scenario.rechecked).toBe('violation');
    expect(agrees(scenario)).toBe(false);
  });

  it('does not let a passing record hide a run that left no check', () => {
    const scenario = storedScenario('pass', ['run-0'], ['run-1'], 'pass');
    expect(scenario.rechecked).toBe('infra-error');
    expect(agrees(scenario)).toBe(false);
  });
});

describe('recheckReport: a Kafka engine scenario', () => {
  it('judges each stored engine run again, and a run directory cut short as the record says', () => {
    const dir = join(report, scenarioDirName('ClickHouseKafkaEngine', 'kafka-rebalance'));
    const observation = {
      topic: [{ partition: 0, offset: 0, id: 1, broken: false }],
      acknowledged: [1],
      stored: [{ values: expectedRow(1), partition: 0, offset: 0 }],
      replicaCounts: [],
      committed: undefined,
      drained: true,
    };
    mkdirSync(join(dir, 'run-0'), { recursive: true });
    writeEngineRun(join(dir, 'run-0'), {
      index: 0,
      phase: 'explore',
      database: 'db',
      input: { settings: { commitEveryBatch: false } } as never,
      dedupOff: true,
      durationMs: 1,
      result: {
        check: { anomalies: [], counts: NO_DELIVERIES, brokenDropped: 0, stored: 1 },
        observation,
        fired: true,
        notes: [],
        faults: [],
        timings: { trafficMs: 0, healMs: 0, checkMs: 0 },
      },
    });
    mkdirSync(join(dir, 'run-1'));
    writeFileSync(
      join(report, 'run-result.json'),
      storedOneScenarioJob('ClickHouseKafkaEngine', 'kafka-rebalance', 'pass'),
    );
    const [scenario] = recheckReport(report);
    expect(scenario).toMatchObject({ recorded: 'pass', rechecked: 'pass', unjudged: ['run-1'] });
    expect(scenario?.runs.map((run) => run.rechecked)).toEqual(['pass']);
    expect(scenario === undefined ? false : agrees(scenario)).toBe(true);
  });
});
