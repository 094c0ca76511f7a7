import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbEveryOnce } from './arb-every-once.ts';

describe('arbEveryOnce (seed 42)', () => {
  it('generates every item exactly once, in varying orders', () => {
    const items = ['a', 'b', 'c', 'd'];
    const samples = fc.sample(arbEveryOnce(items), { seed: 42, numRuns: 50 });
    for (const sample of samples) expect([...sample].sort()).toEqual(items);
    expect(new Set(samples.map((sample) => sample.join(''))).size).toBeGreaterThan(5);
  });

  it('shrinks a failure down to the one item that matters', () => {
    const details = fc.check(
      fc.property(arbEveryOnce([1, 2, 3, 4, 5]), (order) => !order.includes(3)),
      { seed: 42 },
    );
    expect(details.failed).toBe(true);
    expect(details.counterexample?.[0]).toEqual([3]);
  });

  it('drops in halves first: one item of sixteen is found in a few steps, not one step per item', () => {
    const items = Array.from({ length: 16 }, (_, i) => i);
    for (const seed of [1, 2, 3, 42]) {
      let steps = 0;
      let failed = false;
      const details = fc.check(
        fc.property(arbEveryOnce(items), (order) => {
          if (failed) steps += 1;
          failed ||= order.includes(11);
          return !order.includes(11);
        }),
        { seed },
      );
      expect(details.counterexample?.[0]).toEqual([11]);
      expect(steps).toBeLessThanOrEqual(10);
    }
  });
});
