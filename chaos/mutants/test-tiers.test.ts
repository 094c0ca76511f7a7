import { describe, expect, it } from 'vitest';
import { MUTANTS } from './catalogue.ts';
import { QUICK_TIER, SLOW_CATEGORIES } from './test-tiers.ts';

describe('the mutant test tiers', () => {
  it('the quick tier holds exactly one mutant per category a mutant is caught in, but the slow ones', () => {
    const categories = new Set(
      Object.values(MUTANTS)
        .map((entry) => entry.category)
        .filter((category) => !SLOW_CATEGORIES.includes(category)),
    );
    const quick = QUICK_TIER.map((mutant) => MUTANTS[mutant].category);
    expect(new Set(quick)).toEqual(categories);
    expect(quick).toHaveLength(categories.size);
  });
});
