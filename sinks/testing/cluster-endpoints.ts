import type { ClusterDescription } from '../../harness/cluster/index.ts';
import type { ResolveEndpoint } from '../api.ts';
import { addressBook } from '../session/address-book.ts';

/** The spec port the tests write: nominal, since the address book decides where each host is. */
export const NOMINAL_PORT = 8123;

/**
 * Node names (`s1r1`, ...) -> their client endpoint: through the fault proxy (`http`) or direct.
 * Extra entries add names, e.g. one pointing at a closed port.
 */
export function clusterAddressBook(
  description: ClusterDescription,
  route: 'http' | 'direct_http' = 'http',
  extra: Readonly<Record<string, string>> = {},
): ResolveEndpoint {
  const entries = Object.fromEntries(
    description.shards.flatMap((shard) => shard.replicas.map((replica) => [replica.name, replica[route]])),
  );
  return addressBook({ ...entries, ...extra });
}

/** The cluster's shards as a `shard_hosts` value: shard name -> node names. */
export function clusterShardHosts(description: ClusterDescription): Record<string, string[]> {
  return Object.fromEntries(
    description.shards.map((shard) => [shard.name, shard.replicas.map((replica) => replica.name)]),
  );
}
