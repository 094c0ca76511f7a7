import { describe, expect, it } from 'vitest';
import { addTally, NO_TALLY, sumTallies, type Tally } from './tally.ts';

const tally = (over: Partial<Tally>): Tally => ({ ...NO_TALLY, ...over });

describe('the one tally sum', () => {
  it('adds every count field by field, a fault one side never saw counting zero', () => {
    const sum = addTally(
      tally({ runs: 1, replays: 2, faults: { reset_peer: 1 }, counts: { ...NO_TALLY.counts, lost: 1 } }),
      tally({ runs: 1, violations: 1, faults: { timeout: 3, reset_peer: 2 }, counts: { ...NO_TALLY.counts, lost: 2 } }),
    );
    expect(sum).toEqual(
      tally({
        runs: 2,
        violations: 1,
        replays: 2,
        faults: { reset_peer: 3, timeout: 3 },
        counts: { ...NO_TALLY.counts, lost: 3 },
      }),
    );
  });

  it('keeps server dedup uncounted (null) only where no tally counted it', () => {
    const counted = tally({ serverDedup: { offRuns: 1, onRuns: 0, acceptedTwice: 2 } });
    expect(sumTallies([NO_TALLY, NO_TALLY]).serverDedup).toBeNull();
    expect(sumTallies([NO_TALLY, counted, counted]).serverDedup).toEqual({ offRuns: 2, onRuns: 0, acceptedTwice: 4 });
  });

  it('sums nothing to the empty tally', () => {
    expect(sumTallies([])).toEqual(NO_TALLY);
  });
});
