import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../harness/base/index.ts';
import { drain, parsablePositions, storedOf } from './engine-observe.ts';

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

describe('the drain after the heal', () => {
  const owed = new Set(['0/0', '0/1', '0/2', '0/3']);
  const bounds = { stallMs: 60, limitMs: 150, consumedGraceMs: 1_000, pollMs: 5 };
  const never = async () => false;
  /** The stored positions growing by one every `every` reads, never past `upTo`. */
  const growing = (every: number, upTo: number) => {
    let reads = 0;
    return async () => new Set([...owed].slice(0, Math.min(upTo, Math.floor(reads++ / every))));
  };

  it('ends drained once every owed position is stored', async () => {
    await expect(drain(owed, growing(1, 4), never, undefined, bounds)).resolves.toBe(true);
  });

  it('concludes the engine stopped when no new row came for the stall bound', async () => {
    await expect(drain(owed, growing(1, 2), never, undefined, bounds)).resolves.toBe(false);
  });

  it('calls a drain still moving at its limit unjudgeable, never stopped (a false stalled)', async () => {
    const slow = { ...bounds, limitMs: 40, stallMs: 1_000 };
    const error = await drain(owed, growing(4, 3), never, undefined, slow).catch((caught: unknown) => caught);
    expect(isHarnessError(error, 'KAFKA_DRAIN_SLOW')).toBe(true);
  });
});
