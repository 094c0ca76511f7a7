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
