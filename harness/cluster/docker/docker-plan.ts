import { clickhouseKeeperConfig } from '../config/keeper-config.ts';
import { clickhouseNodeConfig } from '../config/clickhouse-config.ts';
import { usersConfig } from '../config/setting-profiles.ts';
import type { ProxyDefinition } from '../proxy-wiring.ts';
import { brokerProperties, kraftClusterId } from '../kafka/broker-config.ts';
import {
  clientProxyHost,
  KAFKA_PRODUCER,
  planTopology,
  proxyNames,
  type TopologyPlan,
  type TopologySpec,
} from '../topology.ts';
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
  kafkaController: 9093,
  kafkaInternal: 9094,
  /** A broker's listener for client i is kafkaClientBase + i. */
  kafkaClientBase: 9200,
  /** The toxiproxy container's proxy for client i's link to broker b (0-based): kafkaProxyBase + b * 100 + i. */
  kafkaProxyBase: 22000,
} as const;

/** A broker's producer link on the host: its own address (`127.11.0.<broker id>`) at the cluster's client port. */
export const producerKafkaHost = (brokerId: number): string => `127.11.0.${brokerId}`;

export const TOXIPROXY_ALIAS = 'toxiproxy';

/**
 * An in-container port published on a host address of its own, at the port all of them share
 * (the cluster's client port, chosen at start): a sink spec names replicas by host with one port.
 */
export interface PublishedPort {
  readonly containerPort: number;
  /** `127.10.<shard>.<replica>`, the client proxy address of the local backends. */
  readonly hostIp: string;
}

export interface ContainerPlan {
  readonly name: string;
  readonly kind: 'clickhouse' | 'keeper' | 'toxiproxy' | 'kafka';
  readonly image: string;
  readonly alias: string;
  readonly files: readonly { readonly target: string; readonly content: string }[];
  readonly env: Readonly<Record<string, string>>;
  /** Published on a random host port (the engine's choice, read back after start). */
  readonly exposedPorts: readonly number[];
  /** Published on their own host address at the cluster's client port. */
  readonly publishedPorts: readonly PublishedPort[];
  /** In-container port whose health check says the member is up. */
  readonly healthPort: number;
  /** Arguments replacing the image's default command, when the member needs others. */
  readonly command?: readonly string[];
}

export interface DockerPlan {
  readonly topology: TopologyPlan;
  readonly containers: readonly ContainerPlan[];
  readonly proxies: readonly ProxyDefinition[];
  /** Node name -> its client proxy: its port inside the toxiproxy container and the host address it is published on. */
  readonly clientProxies: Readonly<Record<string, PublishedPort>>;
  /** Broker name -> each client's bootstrap address (replicas: in the network; `producer`: on the host). */
  readonly kafkaBootstrap: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** Docker's `PortBindings` for a container's published ports: each on its own address, all on `hostPort`. */
export function publishedPortBindings(
  container: ContainerPlan,
  hostPort: number,
): Record<string, { HostIp: string; HostPort: string }[]> {
  return Object.fromEntries(
    container.publishedPorts.map((port) => [
      `${port.containerPort}/tcp`,
      [{ HostIp: port.hostIp, HostPort: String(hostPort) }],
    ]),
  );
}

/**
 * The docker backend's containers, from the same topology and config generators as the local
 * backends: one network, every member reachable by alias, every link through the toxiproxy
 * container when proxies are on, and each client proxy published on the host as the local
 * backends listen: `127.10.<shard>.<replica>`, one port shared by all.
 */
export function dockerPlan(topology: TopologySpec, proxies = true, clientPort = 0): DockerPlan {
  const plan = planTopology(topology);
  const containers: ContainerPlan[] = [];
  const proxyDefinitions: ProxyDefinition[] = [];
  const clientProxies: Record<string, PublishedPort> = {};

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
      publishedPorts: [],
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
      clientProxies[replica.name] = { containerPort: clientPort, hostIp: clientProxyHost(replica) };
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
      publishedPorts: [],
      healthPort: IN_CONTAINER.http,
    });
  });

  const kafka = kafkaContainers(plan, proxies, clientPort);
  containers.push(...kafka.containers);
  proxyDefinitions.push(...kafka.proxies);

  if (proxies) {
    containers.push({
      name: 'toxiproxy',
      kind: 'toxiproxy',
      image: DOCKER_IMAGES.toxiproxy,
      alias: TOXIPROXY_ALIAS,
      files: [],
      env: {},
      exposedPorts: [IN_CONTAINER.toxiproxyApi],
      publishedPorts: [...Object.values(clientProxies), ...kafka.producerProxies],
      healthPort: IN_CONTAINER.toxiproxyApi,
      // The image's own command plus the proxy byte counters (GET /metrics) the chaos faults read.
      command: ['-host=0.0.0.0', '-proxy-metrics'],
    });
  }
  return { topology: plan, containers, proxies: proxyDefinitions, clientProxies, kafkaBootstrap: kafka.bootstrap };
}

/**
 * The Kafka brokers (official image), configured by the same `brokerProperties` as the local
 * backends': every client's listener is told, as the local brokers tell it, where that client
 * connects. Replicas reach their proxies in the toxiproxy container by its alias; the producer
 * runs on the host and reaches each broker at `127.11.0.<id>` on the cluster's client port, its
 * proxy published there (or, without proxies, the broker's own listener).
 */
function kafkaContainers(plan: TopologyPlan, proxies: boolean, clientPort: number) {
  const clients = [...plan.replicas.map((replica) => replica.name), KAFKA_PRODUCER];
  const containers: ContainerPlan[] = [];
  const definitions: ProxyDefinition[] = [];
  const producerProxies: PublishedPort[] = [];
  const bootstrap: Record<string, Record<string, string>> = {};
  const clusterId = kraftClusterId();
  plan.brokers.forEach((broker, b) => {
    const listeners = clients.map((client, i) => {
      const listener = IN_CONTAINER.kafkaClientBase + i;
      const proxyPort = IN_CONTAINER.kafkaProxyBase + b * 100 + i;
      const producer = client === KAFKA_PRODUCER;
      if (proxies)
        definitions.push({
          name: proxyNames.kafka(client, broker.name),
          listen: `0.0.0.0:${proxyPort}`,
          upstream: `${broker.name}:${listener}`,
          enabled: true,
        });
      if (producer && proxies) producerProxies.push({ containerPort: proxyPort, hostIp: producerKafkaHost(broker.id) });
      const advertised = producer
        ? `${producerKafkaHost(broker.id)}:${clientPort}`
        : proxies
          ? `${TOXIPROXY_ALIAS}:${proxyPort}`
          : `${broker.name}:${listener}`;
      return { client, bind: `0.0.0.0:${listener}`, advertised };
    });
    bootstrap[broker.name] = Object.fromEntries(listeners.map((each) => [each.client, each.advertised]));
    const config = '/mnt/chaos/server.properties';
    const producerListener = IN_CONTAINER.kafkaClientBase + clients.length - 1;
    containers.push({
      name: broker.name,
      kind: 'kafka',
      image: DOCKER_IMAGES.kafka,
      alias: broker.name,
      files: [
        {
          target: config,
          content: brokerProperties({
            id: broker.id,
            voters: plan.brokers.map((voter) => ({
              id: voter.id,
              address: `${voter.name}:${IN_CONTAINER.kafkaController}`,
            })),
            controller: `0.0.0.0:${IN_CONTAINER.kafkaController}`,
            internal: {
              bind: `0.0.0.0:${IN_CONTAINER.kafkaInternal}`,
              advertised: `${broker.name}:${IN_CONTAINER.kafkaInternal}`,
            },
            clients: listeners,
            dataDir: '/tmp/kraft-combined-logs',
          }),
        },
      ],
      env: {},
      exposedPorts: [producerListener],
      publishedPorts: proxies ? [] : [{ containerPort: producerListener, hostIp: producerKafkaHost(broker.id) }],
      healthPort: producerListener,
      // The image's scripts: format the log dir once with the cluster's id, then run the broker.
      command: [
        'bash',
        '-c',
        `/opt/kafka/bin/kafka-storage.sh format --ignore-formatted -t ${clusterId} -c ${config} && exec /opt/kafka/bin/kafka-server-start.sh ${config}`,
      ],
    });
  });
  return { containers, proxies: definitions, producerProxies, bootstrap };
}
