import { describe, expect, it } from 'vitest';
import { MUTANTS, type MutantName } from './catalogue.ts';
import { ALSO_CAUGHT_IN, caughtInCategory } from './detection.ts';

describe('a mutant is caught', () => {
  it('in its own category', () => {
    expect(caughtInCategory('unknown-outcome-as-ok', 'violation', ['lost'])).toBe(true);
    expect(caughtInCategory('sharding-key-ignored', 'violation', ['misplaced'])).toBe(true);
  });

  it('not when a category its breakage does not explain comes with it: a checker over-reporting is a finding', () => {
    expect(caughtInCategory('unknown-outcome-as-ok', 'violation', ['lost', 'duplicated'])).toBe(false);
    expect(caughtInCategory('sharding-key-ignored', 'violation', ['misplaced', 'diverged:s1r2'])).toBe(false);
  });

  it('not without its own category, nor without a violation', () => {
    expect(caughtInCategory('unknown-outcome-as-ok', 'violation', ['duplicated'])).toBe(false);
    expect(caughtInCategory('unknown-outcome-as-ok', 'inconclusive', ['lost'])).toBe(false);
  });

  it('with the categories its allow-list explains, each with its reason', () => {
    expect(caughtInCategory('token-changes-on-replay', 'violation', ['duplicated', 'token-not-as-owed'])).toBe(true);
    expect(caughtInCategory('token-changes-on-replay', 'violation', ['token-not-as-owed'])).toBe(false);
    for (const [mutant, allowed] of Object.entries(ALSO_CAUGHT_IN)) {
      expect(allowed.why.length, mutant).toBeGreaterThan(20);
      expect(allowed.kinds, mutant).not.toContain(MUTANTS[mutant as MutantName].category);
    }
  });
});
