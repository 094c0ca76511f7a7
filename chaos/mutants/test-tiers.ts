import type { AnomalyKind } from '../../properties/checkers/index.ts';
import { MUTANTS, type MutantName } from './catalogue.ts';

/**
 * Categories whose every mutant needs minutes to show, so they run in the `mutants` project
 * only: a stall shows only after a whole recovery bound without progress (about 20 s) per heal,
 * and the `stalled` mutant's run took 110 s in the quick tier.
 */
export const SLOW_CATEGORIES: readonly AnomalyKind[] = ['stalled'];

/**
 * The mutants `npm test` runs: one per category a mutant is caught in (but `SLOW_CATEGORIES`),
 * so that every checker category is proven against a real breakage on every test run. Where a
 * category has several mutants, the one whose target scenario catches it fastest (measured in the
 * full tier) stands for it. Every other mutant runs in the `mutants` test project
 * (`npm run test:mutants`, in CI after `npm test`) and in the detection matrix (`npm run mutants`).
 */
export const QUICK_TIER: readonly MutantName[] = [
  'at-most-once-reinserts',
  'token-only-with-async-insert',
  'async-insert-not-deduplicated',
  'topology-guard-disabled',
  'unknown-outcome-as-ok',
  'sharding-key-ignored',
  'routing-fingerprint-with-hosts',
  'utf16-length-as-byte-length',
  'server-errors-permanent',
  'retries-one-past-budget',
  'poison-only-on-permanent',
  'output-messages-not-kept',
  'plain-merge-tree-unwarned',
  'row-values-by-position',
];

/** The rest of the catalogue, in its order. */
export const FULL_TIER_REST: readonly MutantName[] = (Object.keys(MUTANTS) as MutantName[]).filter(
  (mutant) => !QUICK_TIER.includes(mutant),
);
