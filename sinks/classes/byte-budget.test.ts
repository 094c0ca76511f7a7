import { describe, expect, it } from 'vitest';
import { ByteBudget } from './byte-budget.ts';

describe('ByteBudget', () => {
  it('admits up to the limit and refuses what would pass it', () => {
    const budget = new ByteBudget(10);
    expect(budget.tryAdmit(6)).toBe(true);
    expect(budget.tryAdmit(4)).toBe(true);
    expect(budget.tryAdmit(1)).toBe(false);
    expect(budget.usedBytes).toBe(10);
    budget.release(6);
    expect(budget.tryAdmit(5)).toBe(true);
    expect(budget.usedBytes).toBe(9);
  });

  it('never admits a message larger than the limit, even when empty', () => {
    expect(new ByteBudget(10).tryAdmit(11)).toBe(false);
  });

  it('applies a lowered limit to new admissions only', () => {
    const budget = new ByteBudget(10);
    budget.tryAdmit(8);
    budget.setLimit(5);
    expect(budget.usedBytes).toBe(8);
    expect(budget.tryAdmit(1)).toBe(false);
    budget.release(8);
    expect(budget.tryAdmit(5)).toBe(true);
  });
});
