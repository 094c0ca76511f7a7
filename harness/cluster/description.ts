import type { BackendName, ClusterState } from './cluster-state.ts';
import { profileUser, SETTING_PROFILES, type SettingProfile } from './config/setting-profiles.ts';
import type { ProxyServerKind } from './real-toxiproxy/real-toxiproxy.ts';
import { CLUSTER_NAME, proxyNames } from './topology.ts';

export interface ReplicaDescription {
  readonly name: string;
  /** The client endpoint as the sinks reach it: through the `<replica>_client` proxy when proxies are on. */
  readonly http: string;
  readonly direct_http: string;
  readonly tcp: string;
  readonly proxies: {
    readonly client: string;
    /** The Keeper-link proxy to the first Keeper; `keepers` lists one per Keeper. */
    readonly keeper: string;
    readonly keepers: readonly string[];
    readonly interserver: string;
  };
}

/**
 * Who the harness and the sinks connect as. The password is never written down: it is read from
 * the environment variable the description names, when a client is created.
 */
export interface ClusterCredentials {
  readonly user: string;
  readonly password_env_var?: string;
}

/** The one JSON document `cluster up` prints and `cluster status` repeats. */
export interface ClusterDescription {
  readonly backend: BackendName;
  readonly cluster: string;
  readonly run_id: string;
  readonly dir: string;
  readonly toxiproxy: string | null;
  /** Which fault proxy serves that API, for a cluster the harness started (absent: an attached one's own). */
  readonly toxiproxy_server?: ProxyServerKind;
  readonly proxies_enabled: boolean;
  readonly keepers: readonly { readonly name: string; readonly address: string }[];
  /**
   * Kafka brokers (`--kafka N`), absent without them. Each client (a replica's name, or
   * `producer` for the harness's producer) bootstraps from its own address of every broker, its
   * proxy `<client>_kafka_<broker>`; the broker advertises that same address to that client.
   */
  readonly kafka?: readonly {
    readonly name: string;
    readonly bootstrap: Readonly<Record<string, string>>;
    readonly proxies: Readonly<Record<string, string>>;
  }[];
  readonly shards: readonly { readonly name: string; readonly replicas: readonly ReplicaDescription[] }[];
  readonly backend_limits: readonly string[];
  /** Absent: `default` without a password (the clusters the harness starts). */
  readonly credentials?: ClusterCredentials;
  /**
   * The user that carries each setting profile (`config/setting-profiles.ts`), with the password
   * of `credentials` if any. Every cluster the harness starts has them all; a scenario that needs
   * a profile a cluster file does not name is not run.
   */
  readonly setting_users?: Readonly<Partial<Record<SettingProfile, string>>>;
}

/** The profile users of a cluster the harness started: all of them. */
export const STARTED_SETTING_USERS: Readonly<Record<SettingProfile, string>> = Object.fromEntries(
  SETTING_PROFILES.map((profile) => [profile, profileUser(profile)]),
) as Record<SettingProfile, string>;

/** The embedded engine's limit that the reports' configuration matrix repeats beside `async_insert on`. */
export const ASYNC_INSERT_RUNS_SYNCHRONOUSLY =
  'async_insert executes synchronously (the async insert queue is not initialised)';

/** Known limits of each backend, carried into every report. */
export const BACKEND_LIMITS: Readonly<Record<BackendName, readonly string[]>> = {
  embedded: [
    ASYNC_INSERT_RUNS_SYNCHRONOUSLY,
    'no ON CLUSTER DDL and no Replicated database engine: DDL runs on every node',
    'no system.zookeeper table; coordination is Debian ZooKeeper, not ClickHouse Keeper',
    'no TLS listeners in the engine',
    'a restarted node starts with empty system logs (query_log, part_log): clickhouse-local cannot adopt the previous ones',
  ],
  docker: [],
  binary: [],
};

export function describeCluster(state: ClusterState, host = '127.0.0.1'): ClusterDescription {
  const shards = new Map<string, ReplicaDescription[]>();
  for (const node of state.nodes) {
    const keepers = state.keepers.map((keeper) => proxyNames.keeper(node.name, keeper.name));
    const replica: ReplicaDescription = {
      name: node.name,
      http: state.proxiesEnabled
        ? `http://${node.clientHost}:${node.proxyPorts.client}`
        : `http://${host}:${node.httpPort}`,
      direct_http: `http://${host}:${node.httpPort}`,
      tcp: `${host}:${node.tcpPort}`,
      proxies: {
        client: proxyNames.client(node.name),
        keeper: keepers[0] ?? '',
        keepers,
        interserver: proxyNames.interserver(node.name),
      },
    };
    shards.set(node.shard, [...(shards.get(node.shard) ?? []), replica]);
  }
  return {
    backend: state.backend,
    cluster: CLUSTER_NAME,
    run_id: state.runId,
    dir: state.dir,
    toxiproxy: state.toxiproxy?.url ?? null,
    ...(state.toxiproxy === null
      ? {}
      : { toxiproxy_server: state.toxiproxy.server ?? (state.backend === 'docker' ? 'toxiproxy' : 'builtin') }),
    proxies_enabled: state.proxiesEnabled,
    keepers: state.keepers.map((keeper) => ({ name: keeper.name, address: `${host}:${keeper.clientPort}` })),
    ...(state.kafka === undefined || state.kafka.length === 0
      ? {}
      : {
          kafka: state.kafka.map((broker) => ({
            name: broker.name,
            bootstrap: Object.fromEntries(
              Object.entries(broker.clients).map(([client, ports]) => [
                client,
                `${host}:${state.proxiesEnabled ? ports.proxy : ports.listener}`,
              ]),
            ),
            proxies: Object.fromEntries(
              Object.keys(broker.clients).map((client) => [client, proxyNames.kafka(client, broker.name)]),
            ),
          })),
        }),
    shards: [...shards].map(([name, replicas]) => ({ name, replicas })),
    backend_limits: BACKEND_LIMITS[state.backend],
    setting_users: STARTED_SETTING_USERS,
  };
}
