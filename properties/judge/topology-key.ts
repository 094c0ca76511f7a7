import type { ClusterDescription } from '../../harness/cluster/index.ts';
import type { RawSinkSpec } from '../arbitraries/index.ts';
import { specTopology } from './spec-topology.ts';

/**
 * The cluster shard whose replicas include `host` on `port` (the Keeper table the endpoint
 * serves); without a port, any replica on the host.
 */
export function clusterShardOf(description: ClusterDescription, host: string, port: number | undefined): string {
  const serves = (url: URL) => url.hostname === host && (port === undefined || Number(url.port) === port);
  const shard = description.shards.find((candidate) =>
    candidate.replicas.some((replica) => serves(new URL(replica.http))),
  );
  return shard?.name ?? `unknown:${host}${port === undefined ? '' : `:${port}`}`;
}

/**
 * The executor's own model of what the topology guard compares: the routing layout (shard names
 * and key columns, or `unsharded`) and the Keeper table behind every shard. Two specs with the
 * same key may differ in host lists or parameters; the guard must let that through.
 */
export function topologyKey(spec: RawSinkSpec, description: ClusterDescription): string {
  const topology = specTopology(spec);
  if (topology.form !== 'shard_hosts')
    return `unsharded ${clusterShardOf(description, topology.hosts[0], topology.port)}`;
  const names = [...topology.shards.keys()];
  const targets = [...topology.shards].map(
    ([name, hosts]) => `${name}=${clusterShardOf(description, hosts[0], topology.port)}`,
  );
  return `sharded[${names.join(',')}|${topology.keyColumns.join(',')}] ${targets.join(' ')}`;
}
