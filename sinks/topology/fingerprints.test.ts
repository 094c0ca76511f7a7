import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shardName } from '../domain/shard-name.ts';
import { arbShardNames } from '../routing/arb-routing.ts';
import { routingFingerprint } from './routing-fingerprint.ts';
import { targetFingerprint } from './target-fingerprint.ts';

const shards = (...names: string[]) => names.map(shardName);

describe('routingFingerprint', () => {
  it('is the constant unsharded for host and hosts', () => {
    expect(routingFingerprint({ sharded: false })).toBe('unsharded');
  });

  it('is 16 hex digits, pinned (value reproduced in ClickHouse SQL)', () => {
    expect(routingFingerprint({ sharded: true, shards: shards('a', 'b'), shardingKeyColumns: ['user_id'] })).toBe(
      'bd8f6b7377d213ce',
    );
  });

  it('ignores shard order but not key column order', () => {
    fc.assert(
      fc.property(arbShardNames(1, 6), fc.array(fc.string({ minLength: 1 }), { maxLength: 3 }), (names, columns) => {
        const fingerprint = routingFingerprint({ sharded: true, shards: names, shardingKeyColumns: columns });
        expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
        expect(routingFingerprint({ sharded: true, shards: [...names].reverse(), shardingKeyColumns: columns })).toBe(
          fingerprint,
        );
      }),
    );
    const ab = routingFingerprint({ sharded: true, shards: shards('a'), shardingKeyColumns: ['x', 'y'] });
    expect(routingFingerprint({ sharded: true, shards: shards('a'), shardingKeyColumns: ['y', 'x'] })).not.toBe(ab);
  });

  it('changes when a shard is added, removed or renamed, or a key column changes', () => {
    const base = routingFingerprint({ sharded: true, shards: shards('a', 'b'), shardingKeyColumns: [] });
    const variants = [
      { shards: shards('a', 'b', 'c'), shardingKeyColumns: [] },
      { shards: shards('a'), shardingKeyColumns: [] },
      { shards: shards('a', 'c'), shardingKeyColumns: [] },
      { shards: shards('a', 'b'), shardingKeyColumns: ['user_id'] },
    ].map((layout) => routingFingerprint({ sharded: true, ...layout }));
    expect(new Set([base, ...variants]).size).toBe(5);
  });
});

describe('targetFingerprint', () => {
  const keeper = {
    kind: 'keeper',
    zookeeper_name: 'default',
    zookeeper_path: '/clickhouse/tables/01/default/events',
  } as const;
  const endpoint = { kind: 'endpoint', database: 'default', table: 'events', port: 8123, hosts: ['ch-1'] } as const;

  it('is 16 hex digits, pinned for both kinds (values reproduced in ClickHouse SQL)', () => {
    expect(targetFingerprint(keeper)).toBe('38e3ac4c61b4c4bf');
    expect(targetFingerprint(endpoint)).toBe('f7a0024c1ff906cc');
  });

  it('follows the Keeper table only for replicated targets', () => {
    expect(targetFingerprint({ ...keeper, zookeeper_path: '/clickhouse/tables/02/default/events' })).not.toBe(
      targetFingerprint(keeper),
    );
    expect(targetFingerprint({ ...keeper, zookeeper_name: 'auxiliary' })).not.toBe(targetFingerprint(keeper));
  });

  it('follows database, table, port and hosts for endpoint targets, not host order', () => {
    const base = targetFingerprint(endpoint);
    for (const change of [{ database: 'other' }, { table: 'other' }, { port: 9000 }, { hosts: ['ch-2'] }]) {
      expect(targetFingerprint({ ...endpoint, ...change })).not.toBe(base);
    }
    expect(targetFingerprint({ ...endpoint, hosts: ['b', 'a'] })).toBe(
      targetFingerprint({ ...endpoint, hosts: ['a', 'b'] }),
    );
  });
});
