import { clickhouseKeeperConfig } from '../config/keeper-config.ts';
import { clickhouseNodeConfig } from '../config/clickhouse-config.ts';
import { usersConfig } from '../config/setting-profiles.ts';
import type { ProxyDefinition } from '../proxy-wiring.ts';
import { planTopology, proxyNames, type TopologySpec } from '../topology.ts';
import { DOCKER_IMAGES } from './images.ts';

/** Ports inside the containers; the network aliases make them unique per member. */
export const IN_CONTAINER = {
  http: 8123,
  tcp: 9000,
  keeperClient: 9181,
  keeperRaft: 9234,
  toxiproxyApi: 8474,
  /** Each node's interserver port is distinct so its proxy can listen on the same number in the toxiproxy container. */
  interserverBase: 9100,
  clientProxyBase: 20000,
  keeperProxyBase: 21000,
} as const;

export const TOXIPROXY_ALIAS = 'toxiproxy';

export interface ContainerPlan {
  readonly name: string;
  readonly kind: 'clickhouse' | 'keeper' | 'toxiproxy';
  readonly image: string;
  readonly alias: string;
  readonly files: readonly { readonly target: string; readonly content: string }[];
  readonly env: Readonly<Record<string, string>>;
  readonly exposedPorts: readonly number[];
  /** In-container port whose health check says the member is up. */
  readonly healthPort: number;
  /** Arguments replacing the image's default command, when the member needs others. */
  readonly command?: readonly string[];
}

export interface DockerPlan {
  readonly containers: readonly ContainerPlan[];
  readonly proxies: readonly ProxyDefinition[];
  /** Node name -> its client proxy port inside the toxiproxy container (exposed to the host). */
  readonly clientProxyPorts: Readonly<Record<string, number>>;
}

/**
 * The docker backend's containers, from the same topology and config generators as the local
 * backends: one network, every member reachable by alias, every link through the toxiproxy
 * container when proxies are on.
 */
export function dockerPlan(topology: TopologySpec, proxies = true): DockerPlan {
  const plan = planTopology(topology);
  const containers: ContainerPlan[] = [];
  const proxyDefinitions: ProxyDefinition[] = [];
  const clientProxyPorts: Record<string, number> = {};

  for (const keeper of plan.keepers) {
    containers.push({
      name: keeper.name,
      kind: 'keeper',
      image: DOCKER_IMAGES.keeper,
      alias: keeper.name,
      files: [
        {
          target: '/etc/clickhouse-keeper/keeper_config.xml',
          content: clickhouseKeeperConfig(keeper, {
            listenHost: '0.0.0.0',
            clientPort: IN_CONTAINER.keeperClient,
            raft: plan.keepers.map((member) => ({ id: member.id, host: member.name, port: IN_CONTAINER.keeperRaft })),
            paths: {
              log: '/var/log/clickhouse-keeper/clickhouse-keeper.log',
              errorLog: '/var/log/clickhouse-keeper/clickhouse-keeper.err.log',
              coordination: '/var/lib/clickhouse-keeper',
            },
          }),
        },
      ],
      env: {},
      exposedPorts: [IN_CONTAINER.keeperClient],
      healthPort: IN_CONTAINER.keeperClient,
    });
  }

  plan.replicas.forEach((replica, index) => {
    const interserverPort = IN_CONTAINER.interserverBase + index;
    const keeperEndpoints = plan.keepers.map((keeper, keeperIndex) => {
      if (!proxies) return { host: keeper.name, port: IN_CONTAINER.keeperClient };
      const port = IN_CONTAINER.keeperProxyBase + index * plan.keepers.length + keeperIndex;
      proxyDefinitions.push({
        name: proxyNames.keeper(replica.name, keeper.name),
        listen: `0.0.0.0:${port}`,
        upstream: `${keeper.name}:${IN_CONTAINER.keeperClient}`,
        enabled: true,
      });
      return { host: TOXIPROXY_ALIAS, port };
    });
    if (proxies) {
      const clientPort = IN_CONTAINER.clientProxyBase + index;
      clientProxyPorts[replica.name] = clientPort;
      proxyDefinitions.push({
        name: proxyNames.client(replica.name),
        listen: `0.0.0.0:${clientPort}`,
        upstream: `${replica.name}:${IN_CONTAINER.http}`,
        enabled: true,
      });
      proxyDefinitions.push({
        name: proxyNames.interserver(replica.name),
        listen: `0.0.0.0:${interserverPort}`,
        upstream: `${replica.name}:${interserverPort}`,
        enabled: true,
      });
    }
    containers.push({
      name: replica.name,
      kind: 'clickhouse',
      image: DOCKER_IMAGES.clickhouse,
      alias: replica.name,
      files: [
        {
          target: '/etc/clickhouse-server/config.d/zz-chaos.xml',
          content: clickhouseNodeConfig(replica, {
            listenHosts: ['0.0.0.0'],
            httpPort: IN_CONTAINER.http,
            tcpPort: IN_CONTAINER.tcp,
            interserver: { port: interserverPort, advertiseHost: proxies ? TOXIPROXY_ALIAS : replica.name },
            keepers: keeperEndpoints,
            remoteShards: plan.shards.map((shard) =>
              shard.replicas.map((member) => ({ host: member.name, port: IN_CONTAINER.tcp })),
            ),
            paths: {
              data: '/var/lib/clickhouse/',
              tmp: '/var/lib/clickhouse/tmp/',
              userFiles: '/var/lib/clickhouse/user_files/',
              log: '/var/log/clickhouse-server/clickhouse-server.log',
              errorLog: '/var/log/clickhouse-server/clickhouse-server.err.log',
            },
          }),
        },
        {
          // The image keeps its own users.xml (and default); the profile users come beside it.
          target: '/etc/clickhouse-server/users.d/zz-chaos-users.xml',
          content: usersConfig(plan.spec.replicas, { withDefault: false }),
        },
      ],
      // The image locks the passwordless default user to localhost unless told otherwise.
      env: { CLICKHOUSE_SKIP_USER_SETUP: '1' },
      exposedPorts: [IN_CONTAINER.http, IN_CONTAINER.tcp],
      healthPort: IN_CONTAINER.http,
    });
  });

  if (proxies) {
    containers.push({
      name: 'toxiproxy',
      kind: 'toxiproxy',
      image: DOCKER_IMAGES.toxiproxy,
      alias: TOXIPROXY_ALIAS,
      files: [],
      env: {},
      exposedPorts: [IN_CONTAINER.toxiproxyApi, ...Object.values(clientProxyPorts)],
      healthPort: IN_CONTAINER.toxiproxyApi,
      // The image's own command plus the proxy byte counters (GET /metrics) the chaos faults read.
      command: ['-host=0.0.0.0', '-proxy-metrics'],
    });
  }
  return { containers, proxies: proxyDefinitions, clientProxyPorts };
}
