import { describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { clusterShardOf } from './topology-key.ts';

const description = {
  shards: [
    { name: 's1', replicas: [{ name: 's1r1', http: 'http://127.10.1.1:8123' }] },
    { name: 's2', replicas: [{ name: 's2r1', http: 'http://127.10.1.1:9123' }] },
  ],
} as unknown as ClusterDescription;

describe('clusterShardOf', () => {
  it("finds the shard by the spec's host and port: one host may serve two shards on two ports", () => {
    expect(clusterShardOf(description, '127.10.1.1', 9123)).toBe('s2');
    expect(clusterShardOf(description, '127.10.1.1', 8123)).toBe('s1');
    expect(clusterShardOf(description, '127.10.1.1', 7000)).toBe('unknown:127.10.1.1:7000');
  });
});
