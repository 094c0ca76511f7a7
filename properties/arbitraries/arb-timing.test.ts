import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbTiming } from './arb-timing.ts';

describe('arbTiming', () => {
  it('draws within its range', () => {
    for (const ms of fc.sample(arbTiming({ min: 600, max: 2000 }), { numRuns: 200, seed: 5 })) {
      expect(ms).toBeGreaterThanOrEqual(600);
      expect(ms).toBeLessThanOrEqual(2000);
    }
  });

  it('is never shrunk: a failing case keeps the timing it was drawn with, while its other values shrink', () => {
    const drawn: number[] = [];
    const failure = fc.check(
      fc.property(
        fc.record({ epochs: fc.integer({ min: 1, max: 5 }), holdMs: arbTiming({ min: 600, max: 2000 }) }),
        ({ holdMs }) => {
          drawn.push(holdMs);
          return false;
        },
      ),
      { seed: 9, numRuns: 1 },
    );
    const [shrunk] = failure.counterexample ?? [];
    expect(shrunk?.epochs).toBe(1);
    expect(drawn[0]).toBeGreaterThan(600);
    expect(shrunk?.holdMs).toBe(drawn[0]);
  });
});
