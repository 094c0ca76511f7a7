import { Toxiproxy } from 'toxiproxy-node-client';
import { HarnessError } from '../base/index.ts';
import type { ClusterState } from './cluster-state.ts';
import { proxyNames } from './topology.ts';

export interface ProxyDefinition {
  readonly name: string;
  readonly listen: string;
  readonly upstream: string;
  readonly enabled: boolean;
}

/**
 * Hosts of one wiring: where proxies listen, where nodes serve clients and replication, where
 * the Keepers are. The embedded backend serves replication on a second loopback address.
 */
export interface WiringHosts {
  readonly proxyListen: string;
  readonly client: (node: string) => string;
  readonly interserver: (node: string) => string;
  readonly keeper: (keeper: string) => string;
}

export const EMBEDDED_HOSTS: WiringHosts = {
  proxyListen: '127.0.0.1',
  client: () => '127.0.0.1',
  interserver: () => '127.0.0.2',
  keeper: () => '127.0.0.1',
};

/**
 * Every node's client endpoint, Keeper links and replication endpoint, and every client's link to
 * every Kafka broker (local backends: brokers listen on 127.0.0.1), each behind its own proxy.
 */
export function proxyDefinitions(
  state: Pick<ClusterState, 'nodes' | 'keepers' | 'kafka'>,
  hosts: WiringHosts,
): ProxyDefinition[] {
  const definitions: ProxyDefinition[] = [];
  for (const node of state.nodes) {
    definitions.push({
      name: proxyNames.client(node.name),
      listen: `${node.clientHost}:${node.proxyPorts.client}`,
      upstream: `${hosts.client(node.name)}:${node.httpPort}`,
      enabled: true,
    });
    definitions.push({
      name: proxyNames.interserver(node.name),
      listen: `${hosts.proxyListen}:${node.proxyPorts.interserver}`,
      upstream: `${hosts.interserver(node.name)}:${node.interserverPort}`,
      enabled: true,
    });
    for (const keeper of state.keepers) {
      const port = node.proxyPorts.keepers[keeper.name];
      if (port === undefined) throw new Error(`node ${node.name} has no proxy port for keeper ${keeper.name}`);
      definitions.push({
        name: proxyNames.keeper(node.name, keeper.name),
        listen: `${hosts.proxyListen}:${port}`,
        upstream: `${hosts.keeper(keeper.name)}:${keeper.clientPort}`,
        enabled: true,
      });
    }
  }
  for (const broker of state.kafka ?? [])
    for (const [client, ports] of Object.entries(broker.clients))
      definitions.push({
        name: proxyNames.kafka(client, broker.name),
        listen: `${hosts.proxyListen}:${ports.proxy}`,
        upstream: `127.0.0.1:${ports.listener}`,
        enabled: true,
      });
  return definitions;
}

export async function createProxies(toxiproxyUrl: string, definitions: readonly ProxyDefinition[]): Promise<void> {
  const client = new Toxiproxy(toxiproxyUrl);
  try {
    await client.populate(definitions.map((definition) => ({ ...definition })));
  } catch (error) {
    throw new HarnessError(
      'PROXY_SETUP_FAILED',
      `the fault proxy at ${toxiproxyUrl} refused the cluster's ${definitions.length} proxies (${(error as Error).message}); check its log in the run directory`,
      { cause: error },
    );
  }
}
