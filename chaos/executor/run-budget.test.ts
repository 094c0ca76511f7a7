import { describe, expect, it } from 'vitest';
import { exploreDecision, serverDedupOff, type RunBudget } from './run-budget.ts';

const budget: RunBudget = { minRuns: 2, maxRuns: 5, maxMs: 60_000, shrinkMs: 10_000, volume: 1 };

describe('exploreDecision', () => {
  it('runs at least minRuns, even when the first run covered everything', () => {
    expect(exploreDecision(budget, { runs: 1, elapsedMs: 1_000, covered: true })).toBe('run');
    expect(exploreDecision(budget, { runs: 2, elapsedMs: 1_000, covered: true })).toBe('covered');
  });

  it('keeps running while coverage is missing and the budget allows', () => {
    expect(exploreDecision(budget, { runs: 4, elapsedMs: 59_000, covered: false })).toBe('run');
  });

  it('stops when runs or time are spent, and says whether coverage was met', () => {
    expect(exploreDecision(budget, { runs: 5, elapsedMs: 1_000, covered: false })).toBe('budget-spent');
    expect(exploreDecision(budget, { runs: 1, elapsedMs: 60_000, covered: false })).toBe('budget-spent');
    expect(exploreDecision(budget, { runs: 1, elapsedMs: 60_000, covered: true })).toBe('covered');
  });
});

describe('serverDedupOff', () => {
  it('alternates for the token-less classes, off first', () => {
    expect([0, 1, 2, 3].map((ordinal) => serverDedupOff('alternate', false, ordinal))).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(serverDedupOff('off', false, 1)).toBe(true);
    expect(serverDedupOff('on', false, 0)).toBe(false);
  });

  it('never turns it off for a class whose token dedup lives in the window', () => {
    expect(serverDedupOff('off', true, 0)).toBe(false);
    expect(serverDedupOff('alternate', true, 0)).toBe(false);
  });
});
