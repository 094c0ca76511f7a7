import { describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../harness/cluster/index.ts';
import { findScenarios } from './scenarios/index.ts';
import { whyNotRunnable } from './runnable.ts';

const description = (replicas: readonly number[]): ClusterDescription =>
  ({
    keepers: [{ name: 'k1' }],
    // A cluster the harness started names a user for every profile.
    setting_users: { quorum_sequential: 'q', quorum_parallel: 'p', keeper_retries_short: 'k' },
    shards: replicas.map((count, s) => ({
      name: `shard-${s + 1}`,
      replicas: Array.from({ length: count }, (_, r) => ({ name: `s${s + 1}r${r + 1}` })),
    })),
  }) as unknown as ClusterDescription;

const started = (replicas: readonly number[]) => ({ description: description(replicas), processActions: undefined });
const attached = (replicas: readonly number[]) => ({
  description: description(replicas),
  processActions: new Set(['kill', 'pause', 'resume', 'start', 'status']),
});

describe('whyNotRunnable', () => {
  it('does not run a quorum scenario on a shard without a sibling, and says which shard', () => {
    expect(whyNotRunnable(findScenarios(['quorum-sequential'])[0]!, started([2, 1, 2]))).toBe(
      'not run: its faults need 2 replicas in every shard, and shard-2 has 1',
    );
    expect(whyNotRunnable(findScenarios(['quorum-sequential'])[0]!, started([2, 2]))).toBeUndefined();
  });

  it('does not run the topology guard on one shard', () => {
    expect(whyNotRunnable(findScenarios(['topology-guard'])[0]!, started([3]))).toBe(
      'not run: its changes need 2 shards, the cluster has 1',
    );
    expect(whyNotRunnable(findScenarios(['topology-guard'])[0]!, started([1, 1]))).toBeUndefined();
  });

  it('runs the replica faults on single-replica shards (their schedule leaves the replication cut out)', () => {
    expect(whyNotRunnable(findScenarios(['replica-faults'])[0]!, started([1, 1, 1]))).toBeUndefined();
  });

  it('does not arm server failpoints on a cluster it did not start', () => {
    expect(whyNotRunnable(findScenarios(['server-windows'])[0]!, attached([2, 2]))).toMatch(
      /node-wide \(server failpoints\), armed only on a cluster the harness started/,
    );
    expect(whyNotRunnable(findScenarios(['server-windows'])[0]!, started([2, 2]))).toBeUndefined();
  });
});
