import type { ClusterDescription } from '../../harness/cluster/description.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/arb-sink-spec.ts';
import { specTopology } from './spec-topology.ts';

/** The cluster shard whose replicas include `host` (the Keeper table the host serves). */
export function clusterShardOf(description: ClusterDescription, host: string): string {
  const shard = description.shards.find((candidate) =>
    candidate.replicas.some((replica) => new URL(replica.http).hostname === host),
  );
  return shard?.name ?? `unknown:${host}`;
}

/**
 * The executor's own model of what the topology guard compares: the routing layout (shard names
 * and key columns, or `unsharded`) and the Keeper table behind every shard. Two specs with the
 * same key may differ in host lists or parameters; the guard must let that through.
 */
export function topologyKey(spec: RawSinkSpec, description: ClusterDescription): string {
  const topology = specTopology(spec);
  if (topology.form !== 'shard_hosts') return `unsharded ${clusterShardOf(description, topology.hosts[0])}`;
  const names = [...topology.shards.keys()];
  const targets = [...topology.shards].map(([name, hosts]) => `${name}=${clusterShardOf(description, hosts[0])}`);
  return `sharded[${names.join(',')}|${topology.keyColumns.join(',')}] ${targets.join(' ')}`;
}
