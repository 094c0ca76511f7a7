import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainTailFirst } from './chain-tail-first.ts';

// A size, then a list of at least that size: the list stands for a run's schedule, the size for
// the workload it was drawn for.
const head = fc.integer({ min: 3, max: 10 });
const sized = (size: number) =>
  fc
    .array(fc.integer({ min: 0, max: 100 }), { minLength: size, maxLength: size + 5 })
    .map((items) => ({ size, items }));

/** The sizes of every case the property saw, in order, for a property that fails whenever a big item is present. */
function triedSizes(arbitrary: fc.Arbitrary<{ size: number; items: number[] }>, seed: number) {
  const sizes: number[] = [];
  const result = fc.check(
    fc.property(arbitrary, ({ size, items }) => {
      sizes.push(size);
      return !items.some((item) => item > 50);
    }),
    { seed },
  );
  return { sizes, result };
}

describe('chainTailFirst', () => {
  it('generates what chain generates for the same seed', () => {
    for (const seed of [1, 2, 3, 42]) {
      expect(fc.sample(chainTailFirst(head, sized), { seed, numRuns: 20 })).toEqual(
        fc.sample(head.chain(sized), { seed, numRuns: 20 }),
      );
    }
  });

  it('shrinks the tail first and keeps the head it failed with, where chain re-draws from smaller heads first', () => {
    for (const seed of [1, 7, 11]) {
      const tailFirst = triedSizes(chainTailFirst(head, sized), seed);
      const chained = triedSizes(head.chain(sized), seed);
      expect(tailFirst.result.failed && chained.result.failed).toBe(true);
      const failedAt = tailFirst.sizes[tailFirst.result.numRuns - 1];
      expect(new Set(tailFirst.sizes.slice(tailFirst.result.numRuns)), `seed ${seed}`).toEqual(new Set([failedAt]));
      expect(chained.sizes[chained.result.numRuns], `seed ${seed}`).not.toBe(chained.sizes[chained.result.numRuns - 1]);
      expect(tailFirst.result.counterexample?.[0].items.filter((item) => item > 50)).toEqual([51]);
    }
  });

  it('with a cost, tries at most two cheaper heads first, the cheapest first, then the tail as before', () => {
    for (const seed of [1, 7, 11]) {
      const plain = triedSizes(chainTailFirst(head, sized), seed);
      const cheaper = triedSizes(chainTailFirst(head, sized, { cost: (size) => size }), seed);
      expect(cheaper.result.failed).toBe(true);
      const failedAt = cheaper.sizes[cheaper.result.numRuns - 1] ?? 0;
      expect(failedAt).toBeGreaterThan(3);
      // The first step is the cheapest head the head's shrinks offer (its minimum), not a shorter tail.
      expect(cheaper.sizes[cheaper.result.numRuns], `seed ${seed}`).toBe(3);
      expect(plain.sizes[plain.result.numRuns], `seed ${seed}`).toBe(failedAt);
      expect(cheaper.result.counterexample?.[0].items.filter((item) => item > 50)).toEqual([51]);
    }
  });
});
