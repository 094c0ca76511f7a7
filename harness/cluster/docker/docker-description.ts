import { BACKEND_LIMITS, STARTED_SETTING_USERS, type ClusterDescription } from '../description.ts';
import { CLUSTER_NAME, proxyNames } from '../topology.ts';
import { IN_CONTAINER, type DockerPlan } from './docker-plan.ts';

/** What the engine tells about one started container. */
export interface StartedContainerFacts {
  /** The host its exposed ports are published on (testcontainers' `getHost()`). */
  readonly host: string;
  /** In-container port -> the host port the engine chose for it (`getMappedPort`). */
  readonly mappedPorts: Readonly<Record<number, number>>;
}

export interface DockerRun {
  readonly runId: string;
  readonly dir: string;
  /** The host port every client proxy is published on, each on its own address; absent without proxies. */
  readonly clientPort?: number | undefined;
}

/**
 * The description of a started docker cluster, from its plan and what the engine said about each
 * container: the same document the local backends print, so the same code consumes it.
 */
export function describeDockerCluster(
  plan: DockerPlan,
  run: DockerRun,
  started: ReadonlyMap<string, StartedContainerFacts>,
): ClusterDescription {
  const facts = (name: string): StartedContainerFacts => {
    const container = started.get(name);
    if (container === undefined) throw new Error(`container ${name} of the plan was not started`);
    return container;
  };
  const address = (name: string, port: number): string => {
    const container = facts(name);
    const mapped = container.mappedPorts[port];
    if (mapped === undefined) throw new Error(`container ${name} has no published port for ${port}`);
    return `${container.host}:${mapped}`;
  };
  const toxiproxy = plan.containers.find((container) => container.kind === 'toxiproxy');
  const clientEndpoint = (replica: string): string => {
    const proxy = plan.clientProxies[replica];
    if (toxiproxy === undefined || proxy === undefined) return `http://${address(replica, IN_CONTAINER.http)}`;
    if (run.clientPort === undefined) throw new Error('a docker cluster with proxies needs its client port');
    return `http://${proxy.hostIp}:${run.clientPort}`;
  };
  return {
    backend: 'docker',
    cluster: CLUSTER_NAME,
    run_id: run.runId,
    dir: run.dir,
    toxiproxy: toxiproxy === undefined ? null : `http://${address(toxiproxy.name, IN_CONTAINER.toxiproxyApi)}`,
    proxies_enabled: toxiproxy !== undefined,
    keepers: plan.topology.keepers.map((keeper) => ({
      name: keeper.name,
      address: address(keeper.name, IN_CONTAINER.keeperClient),
    })),
    shards: plan.topology.shards.map((shard) => ({
      name: shard.name,
      replicas: shard.replicas.map((replica) => {
        const keepers = plan.topology.keepers.map((keeper) => proxyNames.keeper(replica.name, keeper.name));
        return {
          name: replica.name,
          http: clientEndpoint(replica.name),
          direct_http: `http://${address(replica.name, IN_CONTAINER.http)}`,
          tcp: address(replica.name, IN_CONTAINER.tcp),
          proxies: {
            client: proxyNames.client(replica.name),
            keeper: keepers[0] ?? '',
            keepers,
            interserver: proxyNames.interserver(replica.name),
          },
        };
      }),
    })),
    ...(plan.topology.brokers.length === 0
      ? {}
      : {
          kafka: plan.topology.brokers.map((broker) => {
            const bootstrap = plan.kafkaBootstrap[broker.name] ?? {};
            return {
              name: broker.name,
              bootstrap,
              proxies: Object.fromEntries(
                Object.keys(bootstrap).map((client) => [client, proxyNames.kafka(client, broker.name)]),
              ),
            };
          }),
        }),
    backend_limits: BACKEND_LIMITS.docker,
    setting_users: STARTED_SETTING_USERS,
  };
}
