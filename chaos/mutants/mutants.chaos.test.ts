import { describeMutantTier } from './testing/mutant-tier.ts';
import { QUICK_TIER } from './test-tiers.ts';

// `npm test`'s share of the checkers' self-test: one mutant per category (`test-tiers.ts`), the
// rest in `remaining.mutants.test.ts`.
describeMutantTier(
  'one mutant sink per category is caught, and the unmutated sinks pass',
  QUICK_TIER,
  'unknown-outcome-as-ok',
);
