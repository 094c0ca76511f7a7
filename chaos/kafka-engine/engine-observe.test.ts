import { describe, expect, it } from 'vitest';
import { parsablePositions, storedOf } from './engine-observe.ts';

describe('what the drain waits for', () => {
  // Id 5 twice in partition 1 (the producer retried a send that had landed), one broken message.
  const topic = [
    { partition: 1, offset: 0, id: 5, broken: false },
    { partition: 1, offset: 1, id: 7, broken: false },
    { partition: 1, offset: 2, id: 5, broken: false },
    { partition: 0, offset: 0, id: 4, broken: true },
  ];

  it('owes each position of an id the topic holds twice, so a copy still unconsumed keeps the drain waiting', () => {
    const owed = parsablePositions(topic);
    expect(owed.size).toBe(3);
    expect(storedOf(owed, new Set(['1/0', '1/1']))).toBe(2);
    expect(storedOf(owed, new Set(['1/0', '1/1', '1/2']))).toBe(3);
  });

  it('does not count a stored row of a broken message toward the drain', () => {
    expect(storedOf(parsablePositions(topic), new Set(['1/0', '1/1', '0/0']))).toBe(2);
  });
});
