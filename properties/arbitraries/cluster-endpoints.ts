import type { ClusterDescription } from '../../harness/cluster/description.ts';

/** The cluster as a sink spec sees it: shard name -> replica hosts, and the one client port. */
export interface ClusterEndpoints {
  readonly port: number;
  readonly shards: ReadonlyMap<string, readonly string[]>;
}

/** Reads the client-proxy addresses out of the description (`http://127.10.1.2:P`). */
export function clusterEndpoints(description: ClusterDescription): ClusterEndpoints {
  const shards = new Map<string, string[]>();
  const ports = new Set<number>();
  for (const shard of description.shards) {
    shards.set(
      shard.name,
      shard.replicas.map((replica) => {
        const url = new URL(replica.http);
        ports.add(Number(url.port));
        return url.hostname;
      }),
    );
  }
  const [port] = ports;
  if (ports.size !== 1 || port === undefined) {
    throw new Error(`the sink specs need every client endpoint on one port; the cluster has ${[...ports].join(', ')}`);
  }
  return { port, shards };
}
