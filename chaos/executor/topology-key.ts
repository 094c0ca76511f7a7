import type { ClusterDescription } from '../../harness/cluster/description.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/arb-sink-spec.ts';

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
  const parameters = spec.parameters;
  const shardHosts = parameters.shard_hosts as Record<string, string[]> | undefined;
  if (shardHosts !== undefined) {
    const names = Object.keys(shardHosts).sort();
    const keys = ((parameters.sharding_key_columns as string[] | undefined) ?? []).join(',');
    const targets = names.map((name) => `${name}=${clusterShardOf(description, shardHosts[name]?.[0] ?? '')}`);
    return `sharded[${names.join(',')}|${keys}] ${targets.join(' ')}`;
  }
  const host = (parameters.host as string | undefined) ?? (parameters.hosts as string[] | undefined)?.[0] ?? '';
  return `unsharded ${clusterShardOf(description, host)}`;
}
