import { describe, expect, it } from 'vitest';
import { NO_EVIDENCE } from '../checkers/coverage-ledger.ts';
import type { RunJudgement } from './judge-run.ts';
import { judgeScenario, type ScenarioRun } from './judge-scenario.ts';

/** A judged run that declared one fault and showed it fired (`covered`) or not. */
const judged = (verdict: RunJudgement['verdict'], covered = true): RunJudgement =>
  ({
    verdict,
    results: [],
    coverage: { faults: ['reset_peer'] },
    evidence: { ...NO_EVIDENCE, faultsFired: new Map(covered ? [['reset_peer', 1]] : []) },
  }) as unknown as RunJudgement;
const explore = (judgement?: RunJudgement, harnessFailed = false): ScenarioRun => ({
  phase: 'explore',
  judgement,
  harnessFailed,
});
const NO_FACTS = { interrupted: false, harnessFailed: false, outlived: false };

describe('the one scenario rule', () => {
  it('passes once the exploring runs together showed what was declared, and only then', () => {
    expect(judgeScenario([explore(judged('pass'))], NO_FACTS).verdict).toBe('pass');
    expect(judgeScenario([explore(judged('pass', false))], NO_FACTS).verdict).toBe('inconclusive');
    expect(judgeScenario([], NO_FACTS).verdict).toBe('inconclusive');
    expect(judgeScenario([explore(judged('pass'))], { ...NO_FACTS, outlived: true }).verdict).toBe('inconclusive');
  });

  it('puts an interruption first, then a violation (a shrinking one too), then a harness failure', () => {
    const violated: ScenarioRun = { phase: 'shrink', judgement: judged('violation'), harnessFailed: false };
    expect(judgeScenario([violated], { ...NO_FACTS, interrupted: true }).verdict).toBe('interrupted');
    expect(judgeScenario([explore(undefined, true), violated], NO_FACTS).verdict).toBe('violation');
    expect(judgeScenario([explore(judged('pass')), explore(undefined, true)], NO_FACTS).verdict).toBe('infra-error');
    expect(judgeScenario([explore(judged('pass'), true)], NO_FACTS).verdict).toBe('infra-error');
    expect(judgeScenario([explore(judged('infra-error'))], NO_FACTS).verdict).toBe('infra-error');
    expect(judgeScenario([explore(judged('pass'))], { ...NO_FACTS, harnessFailed: true }).verdict).toBe('infra-error');
  });

  it('earns coverage from exploring runs only: a shrink step covers nothing', () => {
    const shrink: ScenarioRun = { phase: 'shrink', judgement: judged('pass'), harnessFailed: false };
    expect(judgeScenario([explore(judged('pass', false)), shrink], NO_FACTS).ledger.complete).toBe(false);
  });
});
