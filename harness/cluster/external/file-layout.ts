import type { ClusterDescription } from '../description.ts';

const replicasOf = (description: ClusterDescription) => description.shards.flatMap((shard) => shard.replicas);

/**
 * The one-port rule of the sink specs (`properties/arbitraries/cluster-endpoints.ts`): a spec names
 * replicas as hosts with one `port`, so every replica's `http` names the same port and a host of
 * its own. Checked once here rather than failing every class x scenario pair later.
 */
export function checkClientPorts(description: ClusterDescription): string | undefined {
  const hosts = new Map<string, string>();
  const ports = new Set<string>();
  for (const replica of replicasOf(description)) {
    const url = new URL(replica.http);
    if (url.port === '')
      return `replica ${replica.name}: \`http\` must name its port (http://host:port): the sink specs take the one port from it`;
    ports.add(url.port);
    const other = hosts.get(url.hostname);
    if (other !== undefined)
      return `replicas ${other} and ${replica.name} have \`http\` on one host (${url.hostname}): a sink spec names replicas by host with one port, so each needs a host of its own`;
    hosts.set(url.hostname, replica.name);
  }
  if (ports.size > 1)
    return `every replica's \`http\` must use one port (a sink spec names replicas as hosts with one port); the file has ${[...ports].join(', ')}`;
  return undefined;
}

/** Each proxy carries one link of one replica: a name given twice cuts, or heals, the wrong link. */
export function checkProxyOwners(description: ClusterDescription): string | undefined {
  const owners = new Map<string, string>();
  for (const replica of replicasOf(description)) {
    for (const proxy of [replica.proxies.client, replica.proxies.interserver, ...replica.proxies.keepers]) {
      const owner = owners.get(proxy);
      if (owner !== undefined)
        return owner === replica.name
          ? `replica ${replica.name} names proxy ${proxy} for two of its links; each link needs its own proxy`
          : `proxy ${proxy} is named by replicas ${owner} and ${replica.name}; each replica's links need proxies of their own`;
      owners.set(proxy, replica.name);
    }
  }
  for (const broker of description.kafka ?? [])
    for (const [client, proxy] of Object.entries(broker.proxies)) {
      const link = `${client}'s link to ${broker.name}`;
      const owner = owners.get(proxy);
      if (owner !== undefined)
        return `proxy ${proxy} is named for ${owner} and for ${link}; each link needs a proxy of its own`;
      owners.set(proxy, link);
    }
  return undefined;
}
