import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliveryDiff, type DeliveryDiff } from './delivery-diff.ts';
import type { ReplicaTruth } from './observations.ts';

const IDS = Array.from({ length: 6 }, (_, seq) => `1-0-${seq}`);
const shardOf = (id: string) => (Number(id.split('-')[2]) % 2 === 0 ? 's1' : 's2');
const REPLICAS = ['s1r1', 's1r2', 's2r1', 's2r2'];

/** Every replica holding each acknowledged id of its shard once: exactly once, placed right. */
const exactlyOnce = (acknowledged: readonly string[]): ReplicaTruth[] =>
  REPLICAS.map((replica) => ({
    shard: replica.slice(0, 2),
    replica,
    counts: new Map(acknowledged.filter((id) => shardOf(id) === replica.slice(0, 2)).map((id) => [id, 1])),
  }));

/**
 * `replicas` with the counts changed on one replica, or on every replica of a shard (`where`:
 * `s1r2` or `s1`); a count of 0 removes the id, as a replica lacking the row reads.
 */
const withCounts = (replicas: ReplicaTruth[], where: string, counts: Record<string, number>): ReplicaTruth[] =>
  replicas.map((truth) => {
    if (!truth.replica.startsWith(where)) return truth;
    const changed = new Map([...truth.counts, ...Object.entries(counts)]);
    return { ...truth, counts: new Map([...changed].filter(([, n]) => n > 0)) };
  });

const anomalies = (diff: DeliveryDiff) => ({
  lost: diff.lost,
  duplicated: diff.duplicated,
  unacknowledged: diff.unacknowledged,
  misplaced: diff.misplaced,
  diverged: diff.diverged,
});
const NONE = { lost: [], duplicated: [], unacknowledged: [], misplaced: [], diverged: [] };

describe('deliveryDiff', () => {
  it('finds nothing when every replica holds its shard’s acknowledged ids once', () => {
    const diff = deliveryDiff({ replicas: exactlyOnce(IDS), acknowledged: IDS, expectedShards: (id) => [shardOf(id)] });
    expect(anomalies(diff)).toEqual(NONE);
    expect(diff.present).toEqual(new Map(IDS.map((id) => [id, 1])));
  });

  it('names each departure in its own category', () => {
    // 1-0-0 lost; 1-0-1 twice on s2; 1-0-2 missing on s1r2; 1-0-4 on s2 as well; 9-9-9 never acknowledged.
    let replicas = exactlyOnce(IDS.filter((id) => id !== '1-0-0'));
    replicas = withCounts(replicas, 's2', { '1-0-1': 2, '1-0-4': 1 });
    replicas = withCounts(replicas, 's1', { '9-9-9': 1 });
    replicas = withCounts(replicas, 's1r2', { '1-0-2': 0 });
    const diff = deliveryDiff({ replicas, acknowledged: IDS, expectedShards: (id) => [shardOf(id)] });
    expect(anomalies(diff)).toEqual({
      lost: ['1-0-0'],
      duplicated: ['1-0-1', '1-0-4'],
      unacknowledged: ['9-9-9'],
      misplaced: [
        { id: '9-9-9', replica: 's1r1', expected: 's2' },
        { id: '9-9-9', replica: 's1r2', expected: 's2' },
        { id: '1-0-4', replica: 's2r1', expected: 's1' },
        { id: '1-0-4', replica: 's2r2', expected: 's1' },
      ],
      diverged: [{ replica: 's1r2', ids: ['1-0-2'] }],
    });
  });

  it('places nothing when any shard is fine (unsharded forms)', () => {
    const replicas = withCounts(exactlyOnce([]), 's2r1', { '1-0-0': 1 });
    expect(deliveryDiff({ replicas, acknowledged: [], expectedShards: () => null }).misplaced).toEqual([]);
  });

  // The integration tests judge by this diff alone: it must be empty exactly when each replica
  // holds every acknowledged id of its shard once and nothing else, as a per-replica reading says.
  it('is empty exactly when every replica holds its shard’s acknowledged ids once and nothing else', () => {
    const arbCounts = fc
      .dictionary(fc.constantFrom(...IDS), fc.integer({ min: 1, max: 2 }), { maxKeys: IDS.length })
      .map((counts) => new Map(Object.entries(counts)));
    const arbCase = fc.subarray(IDS).chain((acknowledged) =>
      fc.record({
        acknowledged: fc.constant(acknowledged),
        replicas: fc.oneof(
          fc.constant(exactlyOnce(acknowledged)),
          fc
            .array(fc.tuple(fc.constantFrom(...REPLICAS, 's1', 's2'), fc.constantFrom(...IDS), fc.nat(2)), {
              minLength: 1,
              maxLength: 3,
            })
            .map((tweaks) =>
              tweaks.reduce(
                (replicas, [where, id, n]) => withCounts(replicas, where, { [id]: n }),
                exactlyOnce(acknowledged),
              ),
            ),
          // One message's rows on the other shard, on both its replicas: wrong only in placement.
          fc.constantFrom(...IDS).map((id) => {
            const moved = withCounts(exactlyOnce(acknowledged), shardOf(id), { [id]: 0 });
            return withCounts(moved, shardOf(id) === 's1' ? 's2' : 's1', { [id]: 1 });
          }),
          fc
            .tuple(arbCounts, arbCounts, arbCounts, arbCounts)
            .map((all) => all.map((counts, i) => ({ shard: REPLICAS[i]!.slice(0, 2), replica: REPLICAS[i]!, counts }))),
        ),
      }),
    );
    fc.assert(
      fc.property(arbCase, ({ acknowledged, replicas }) => {
        const perReplica = replicas.every(({ shard, counts }) => {
          const owed = acknowledged.filter((id) => shardOf(id) === shard);
          return counts.size === owed.length && owed.every((id) => counts.get(id) === 1);
        });
        const diff = deliveryDiff({ replicas, acknowledged, expectedShards: (id) => [shardOf(id)] });
        expect(Object.values(anomalies(diff)).every((found) => found.length === 0)).toBe(perReplica);
      }),
      // Each planted departure is one narrow case among many: enough runs to meet every kind.
      { numRuns: 1000 },
    );
  });
});
