import fc from 'fast-check';

/**
 * A fault's timing, pace or size (a hold, a delay, a timeout, a rate, the bytes let through),
 * drawn in a range and never shrunk. Each shrink step is a real run of 5-15 s, and a shorter hold
 * or delay is not a simpler case to read: the steps were spent walking these toward their minimum
 * (5 of the 7 accepted steps of an at-most-once unknown-outcome case), while dropping a step or an
 * epoch, which does make a case smaller, waited behind them.
 */
export const arbTiming = (range: { readonly min: number; readonly max: number }): fc.Arbitrary<number> =>
  fc.noShrink(fc.integer(range));
