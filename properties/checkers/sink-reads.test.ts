import { describe, expect, it } from 'vitest';
import { type SinkInsert, type SinkRead, tallyReads } from './sink-reads.ts';

const read = (via: SinkRead['via'], startedAt: number, ids: string[]): SinkRead => ({
  via,
  replica: 's1r1',
  startedAt,
  endedAt: startedAt + 5,
  ids,
});
const insert = (batch: number, shard: string | null, ids: string[], ackedAt?: number): SinkInsert => ({
  partition: 0,
  batch,
  shard,
  ids,
  ...(ackedAt === undefined ? {} : { ackedAt }),
});
const NONE = { local: 0, dist: 0 };

describe('what readers saw of a sink', () => {
  it('counts a read that saw some rows of one INSERT and not the others, and none that saw INSERTs whole', () => {
    const inserts = [insert(1, null, ['a', 'b', 'c']), insert(2, null, ['d', 'e'])];
    const [local] = tallyReads(
      [read('local', 0, []), read('local', 10, ['a', 'b', 'c']), read('local', 20, ['a', 'b', 'c', 'd'])],
      NONE,
      inserts,
    );
    expect(local).toMatchObject({ via: 'local', reads: 3, partInsert: 1 });
  });

  it('does not ask a re-cut batch whether it was seen in part: either cut may be the one that landed', () => {
    const inserts = [insert(1, null, ['a', 'b', 'c']), insert(1, null, ['a', 'b'])];
    const [local] = tallyReads([read('local', 0, ['a', 'b'])], NONE, inserts);
    expect(local?.partInsert).toBe(0);
  });

  it('measures how long a batch over two shards showed on one and not the other through _dist', () => {
    const inserts = [insert(1, 's1', ['a', 'b']), insert(1, 's2', ['c']), insert(2, 's1', ['d'])];
    const [, dist] = tallyReads(
      [
        read('dist', 0, []),
        read('dist', 10, ['a', 'b']),
        read('dist', 20, ['a', 'b']),
        read('dist', 30, ['a', 'b', 'c', 'd']),
      ],
      { local: 0, dist: 2 },
      inserts,
    );
    expect(dist).toEqual({
      via: 'dist',
      reads: 4,
      failedReads: 2,
      partInsert: 0,
      batches: 1,
      splitReads: 2,
      windowsMs: [15],
      stale: 0,
      wentBack: 0,
    });
  });

  it('leaves out a batch the last read did not see whole: a part dropped for good has no window to end', () => {
    const inserts = [insert(1, 's1', ['a']), insert(1, 's2', ['b'])];
    const [, dist] = tallyReads([read('dist', 0, ['a']), read('dist', 10, ['a'])], NONE, inserts);
    expect(dist).toMatchObject({ batches: 0, splitReads: 0, windowsMs: [] });
  });

  it('counts a _dist read that missed an INSERT acknowledged before it began, and none for one acknowledged after', () => {
    const inserts = [insert(1, 's1', ['a'], 5), insert(2, 's2', ['b'], 25), insert(3, 's2', ['c'])];
    const [, dist] = tallyReads(
      // Only the first misses a write acknowledged before it (a, at 5); b is acknowledged after the
      // second began, and c, never acknowledged, owes no reader anything.
      [read('dist', 10, []), read('dist', 20, ['a']), read('dist', 30, ['a', 'b'])],
      NONE,
      inserts,
    );
    expect(dist?.stale).toBe(1);
  });

  it('counts a read that lacked a row an earlier read saw: through _dist against all, a replica against its own', () => {
    const other = (startedAt: number, ids: string[]): SinkRead => ({
      ...read('local', startedAt, ids),
      replica: 's1r2',
    });
    const [local, dist] = tallyReads(
      [
        read('local', 0, ['a']),
        other(10, []),
        read('local', 20, []),
        read('dist', 30, ['a']),
        read('dist', 40, []),
        read('dist', 50, ['a']),
      ],
      NONE,
      [],
    );
    expect(local?.wentBack).toBe(1);
    expect(dist?.wentBack).toBe(1);
  });
});
