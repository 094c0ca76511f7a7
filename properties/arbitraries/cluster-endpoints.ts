import { HarnessError } from '../../harness/base/index.ts';
import type { ClusterDescription } from '../../harness/cluster/index.ts';

/** The cluster as a sink spec sees it: shard name -> replica hosts, and the one client port. */
export interface ClusterEndpoints {
  readonly port: number;
  readonly shards: ReadonlyMap<string, readonly string[]>;
}

/**
 * Reads the client-proxy addresses out of the description (`http://127.10.1.2:P`). A sink spec
 * names replicas as the original does, by host with one `port`: a description whose replicas do
 * not each have a host of their own on one shared port cannot be written as a spec.
 */
export function clusterEndpoints(description: ClusterDescription): ClusterEndpoints {
  const replicas = description.shards.flatMap((shard) =>
    shard.replicas.map((replica) => ({ shard: shard.name, name: replica.name, url: new URL(replica.http) })),
  );
  const ports = [...new Set(replicas.map((replica) => Number(replica.url.port)))];
  const [port] = ports;
  if (ports.length !== 1 || port === undefined) {
    throw new HarnessError(
      'CLUSTER_ENDPOINTS_UNUSABLE',
      `the sink specs need every client endpoint on one port; the cluster has ${ports.join(', ')}`,
    );
  }
  const shards = new Map(description.shards.map((shard) => [shard.name, [] as string[]]));
  const replicaOf = new Map<string, string>();
  for (const replica of replicas) {
    const host = replica.url.hostname;
    const other = replicaOf.get(host);
    if (other !== undefined) {
      throw new HarnessError(
        'CLUSTER_ENDPOINTS_UNUSABLE',
        `the sink specs name replicas by host, but ${other} and ${replica.name} share the host ${host}`,
      );
    }
    replicaOf.set(host, replica.name);
    shards.get(replica.shard)?.push(host);
  }
  return { port, shards };
}
