import { describe, expect, it } from 'vitest';
import { SINK_CLASSES } from '../../sinks/index.ts';
import { OWED_BY_CLASS } from './owed-by-class.ts';

describe("the checkers' table of what each class owes", () => {
  it('agrees with what each sink class declares of itself: guarantee, token, batching', () => {
    for (const [name, descriptor] of Object.entries(SINK_CLASSES)) {
      const owed = OWED_BY_CLASS[name as keyof typeof OWED_BY_CLASS];
      expect([owed.guarantee, owed.sendsToken, owed.batches], name).toEqual([
        descriptor.guarantee,
        descriptor.usesDedupToken,
        descriptor.batching,
      ]);
    }
    expect(Object.keys(OWED_BY_CLASS)).toEqual(Object.keys(SINK_CLASSES));
  });
});
