import { describeMutantTier } from './testing/mutant-tier.ts';
import { FULL_TIER_REST } from './test-tiers.ts';

// The mutants `mutants.chaos.test.ts` leaves out (`npm run test:mutants`; CI runs it after `npm test`).
describeMutantTier(
  'every other mutant sink is caught, and the unmutated sinks pass',
  FULL_TIER_REST,
  'at-least-once-commits-first',
);
