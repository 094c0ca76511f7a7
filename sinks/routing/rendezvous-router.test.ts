import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageId, type MessageId } from '../domain/message-id.ts';
import { shardName, type ShardName } from '../domain/shard-name.ts';
import { toHex64 } from '../hash/xxhash64.ts';
import { arbConsecutiveMessageIds, arbShardName, arbShardNames } from './arb-routing.ts';
import { RendezvousRouter, rendezvousScore } from './rendezvous-router.ts';
import { routingKeyFor } from './routing-key.ts';

const keyOf = (id: MessageId) => routingKeyFor(id, {}, []);
const routeAll = (router: RendezvousRouter, ids: readonly MessageId[]) => ids.map((id) => router.route(keyOf(id)));

/** Wilson–Hilferty approximation of the chi-square quantile for a one-sided z. */
function chiSquareCritical(degrees: number, z: number): number {
  const c = 2 / (9 * degrees);
  return degrees * (1 - c + z * Math.sqrt(c)) ** 3;
}

describe('RendezvousRouter', () => {
  it('scores a key on a shard as xxHash64 of the length-prefixed pair (values from ClickHouse)', () => {
    const key = keyOf(messageId('1-4-17'));
    expect(toHex64(rendezvousScore(key, shardName('a')))).toBe('195ecf2363a452ab');
    expect(toHex64(rendezvousScore(key, shardName('b')))).toBe('db99f5b67c95fb72');
  });

  it('routes to the highest score: known answers (checked against the same formula in ClickHouse SQL)', () => {
    const ids = Array.from({ length: 8 }, (_, seq) => messageId(`1-0-${seq}`));
    expect(routeAll(new RendezvousRouter(['a', 'b'].map(shardName)), ids)).toEqual([
      'a',
      'a',
      'b',
      'a',
      'b',
      'b',
      'b',
      'b',
    ]);
    expect(routeAll(new RendezvousRouter(['s3', 's1', 's2'].map(shardName)), ids)).toEqual([
      's1',
      's3',
      's1',
      's1',
      's1',
      's1',
      's2',
      's2',
    ]);
  });

  it('routes every key to the shard whose spelt-out score is highest, whatever the key and name lengths', () => {
    fc.assert(
      fc.property(arbShardNames(1, 8), fc.uint8Array({ maxLength: 80 }), (shards, bytes) => {
        const key = bytes as Parameters<typeof rendezvousScore>[0];
        const scores = shards.map((shard) => ({ shard, score: rendezvousScore(key, shard) }));
        const highest = scores.reduce((best, next) =>
          next.score > best.score || (next.score === best.score && next.shard < best.shard) ? next : best,
        );
        expect(new RendezvousRouter(shards).route(key)).toBe(highest.shard);
      }),
      { seed: 20261130, numRuns: 500 },
    );
  });

  it('refuses an empty or duplicated shard list', () => {
    expect(() => new RendezvousRouter([])).toThrow(/at least one shard/);
    expect(() => new RendezvousRouter(['a', 'b', 'a'].map(shardName))).toThrow(/Shard 'a' is listed twice/);
  });

  it('spreads message ids evenly over 2..8 shards (chi-square, p < 1e-6 to fail)', () => {
    const keysPerRun = 2000;
    fc.assert(
      fc.property(arbShardNames(2, 8), arbConsecutiveMessageIds(keysPerRun), (shards, ids) => {
        const counts = new Map<ShardName, number>(shards.map((s) => [s, 0]));
        for (const shard of routeAll(new RendezvousRouter(shards), ids))
          counts.set(shard, (counts.get(shard) ?? 0) + 1);
        const expected = keysPerRun / shards.length;
        const chiSquare = [...counts.values()].reduce(
          (sum, observed) => sum + (observed - expected) ** 2 / expected,
          0,
        );
        expect(chiSquare).toBeLessThan(chiSquareCritical(shards.length - 1, 4.75));
      }),
      { numRuns: 15 },
    );
  });

  it('moves only keys that now go to an added shard', () => {
    fc.assert(
      fc.property(arbShardNames(1, 6), arbShardName, arbConsecutiveMessageIds(300), (shards, added, ids) => {
        fc.pre(!shards.includes(added));
        const before = routeAll(new RendezvousRouter(shards), ids);
        const after = routeAll(new RendezvousRouter([...shards, added]), ids);
        before.forEach((shard, i) => {
          if (after[i] !== shard) expect(after[i]).toBe(added);
        });
      }),
      { numRuns: 30 },
    );
  });

  it("moves only the removed shard's keys", () => {
    fc.assert(
      fc.property(arbShardNames(2, 7), fc.nat(), arbConsecutiveMessageIds(300), (shards, pick, ids) => {
        const removed = shards[pick % shards.length] as ShardName;
        const before = routeAll(new RendezvousRouter(shards), ids);
        const after = routeAll(new RendezvousRouter(shards.filter((s) => s !== removed)), ids);
        before.forEach((shard, i) => {
          if (after[i] !== shard) expect(shard).toBe(removed);
        });
      }),
      { numRuns: 30 },
    );
  });

  it('ignores the order in which shard names are given', () => {
    fc.assert(
      fc.property(
        arbShardNames(1, 8).chain((shards) =>
          fc.tuple(fc.constant(shards), fc.shuffledSubarray(shards, { minLength: shards.length })),
        ),
        arbConsecutiveMessageIds(200),
        ([shards, shuffled], ids) => {
          expect(routeAll(new RendezvousRouter(shuffled), ids)).toEqual(routeAll(new RendezvousRouter(shards), ids));
        },
      ),
      { numRuns: 30 },
    );
  });
});
