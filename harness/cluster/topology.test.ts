import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../base/index.ts';
import { planTopology, proxyNames } from './topology.ts';

describe('planTopology', () => {
  it('names shards, replicas and keepers for the default 2x2x1', () => {
    const plan = planTopology({ shards: 2, replicas: 2, keepers: 1 });
    expect(plan.shards.map((s) => s.name)).toEqual(['s1', 's2']);
    expect(plan.replicas.map((r) => r.name)).toEqual(['s1r1', 's1r2', 's2r1', 's2r2']);
    expect(plan.keepers).toEqual([{ name: 'k1', id: 1 }]);
    expect(plan.replicas[2]).toMatchObject({ shard: 's2', shardIndex: 2, replicaIndex: 1 });
  });

  it.each([
    [{ shards: 0, replicas: 2, keepers: 1 }, '--shards'],
    [{ shards: 2, replicas: 1.5, keepers: 1 }, '--replicas'],
    [{ shards: 2, replicas: 2, keepers: 2 }, 'odd number'],
    [{ shards: 9, replicas: 2, keepers: 1 }, 'from 1 to 8'],
    [{ shards: 2, replicas: 1, keepers: 1, shardNames: ['a'] }, '1 name(s) for 2 shard(s)'],
    [{ shards: 2, replicas: 1, keepers: 1, shardNames: ['a', 'a'] }, 'names a shard twice'],
    [{ shards: 1, replicas: 1, keepers: 1, shardNames: ["x'; DROP"] }, "shard name 'x'; DROP'"],
    [{ shards: 1, replicas: 1, keepers: 1, kafka: 2 }, '--kafka must be 0, 1 or 3'],
  ])('refuses %j', (spec, fragment) => {
    let caught: unknown;
    try {
      planTopology(spec);
    } catch (error) {
      caught = error;
    }
    expect(isHarnessError(caught, 'TOPOLOGY_INVALID')).toBe(true);
    expect((caught as Error).message).toContain(fragment);
  });

  it('takes shard names of any length, and names the replicas after them', () => {
    const plan = planTopology({ shards: 3, replicas: 2, keepers: 1, shardNames: ['a', 'north_eu-2', 's9'] });
    expect(plan.shards.map((s) => s.name)).toEqual(['a', 'north_eu-2', 's9']);
    expect(plan.replicas.map((r) => r.name)).toEqual(['ar1', 'ar2', 'north_eu-2r1', 'north_eu-2r2', 's9r1', 's9r2']);
    expect(plan.replicas[2]).toMatchObject({ shard: 'north_eu-2', shardIndex: 2, replicaIndex: 1 });
  });

  it('names proxies per replica and link', () => {
    expect(proxyNames.client('s1r2')).toBe('s1r2_client');
    expect(proxyNames.keeper('s1r2', 'k3')).toBe('s1r2_keeper_k3');
    expect(proxyNames.interserver('s2r1')).toBe('s2r1_interserver');
    expect(proxyNames.kafka('s2r1', 'kf3')).toBe('s2r1_kafka_kf3');
  });

  it('names the Kafka brokers kf1.. with node ids from 1, none by default', () => {
    expect(planTopology({ shards: 1, replicas: 1, keepers: 1, kafka: 3 }).brokers).toEqual([
      { name: 'kf1', id: 1 },
      { name: 'kf2', id: 2 },
      { name: 'kf3', id: 3 },
    ]);
    expect(planTopology({ shards: 1, replicas: 1, keepers: 1 }).brokers).toEqual([]);
  });
});
