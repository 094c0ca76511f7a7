import { CLUSTER_NAME, type ReplicaPlan } from '../topology.ts';
import { toXml, type XmlElement } from './xml.ts';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** Where one node listens and how it reaches the others; each backend fills it its own way. */
export interface NodeAddressing {
  readonly listenHosts: readonly string[];
  readonly httpPort: number;
  readonly tcpPort: number;
  /**
   * The real server's interserver endpoint (binary, docker). It advertises the port it listens
   * on, so a proxy in front of it listens on the same port on another address. The embedded
   * engine has no such setting: its launcher advertises the address, and the second listen
   * host serves replication.
   */
  readonly interserver?: { readonly port: number; readonly listenHost?: string; readonly advertiseHost: string };
  /** Keeper endpoints as this node reaches them (through its own Keeper-link proxies). */
  readonly keepers: readonly HostPort[];
  /** Native-protocol endpoints of every replica of every shard, for `remote_servers`. */
  readonly remoteShards: readonly (readonly HostPort[])[];
  readonly paths: {
    readonly data: string;
    readonly tmp: string;
    readonly userFiles: string;
    readonly log: string;
    readonly errorLog: string;
    /** A users file of the harness's own (`usersConfig`); absent: the server's own users file. */
    readonly users?: string;
  };
}

/** Keeper session timeout: short enough that a cut link turns tables read-only within seconds. */
export const KEEPER_SESSION_TIMEOUT_MS = 6000;

/** The server config of one replica; identical in shape for every backend. */
export function clickhouseNodeConfig(replica: ReplicaPlan, address: NodeAddressing): string {
  const body: XmlElement = {
    logger: {
      level: 'information',
      log: address.paths.log,
      errorlog: address.paths.errorLog,
      size: '100M',
      count: 2,
      console: false,
    },
    listen_host: address.listenHosts,
    http_port: address.httpPort,
    tcp_port: address.tcpPort,
    interserver_http_port: address.interserver?.port,
    interserver_http_host: address.interserver?.advertiseHost,
    interserver_listen_host: address.interserver?.listenHost,
    path: address.paths.data,
    tmp_path: address.paths.tmp,
    user_files_path: address.paths.userFiles,
    users_config: address.paths.users,
    macros: { cluster: CLUSTER_NAME, shard: replica.shard, replica: replica.name },
    zookeeper: {
      node: address.keepers.map((keeper) => ({ host: keeper.host, port: keeper.port })),
      session_timeout_ms: KEEPER_SESSION_TIMEOUT_MS,
      operation_timeout_ms: 3000,
      // Every embedded engine reports the same all-zero server UUID; distinct session paths keep
      // the nodes from killing each other's Keeper sessions.
      sessions_path: `/clickhouse/sessions_${replica.name}`,
    },
    remote_servers: {
      [CLUSTER_NAME]: {
        shard: address.remoteShards.map((replicas) => ({
          internal_replication: true,
          replica: replicas.map((endpoint) => ({ host: endpoint.host, port: endpoint.port })),
        })),
      },
    },
    // The Kafka engine's consumers (librdkafka): a group member that is gone is noticed within the
    // broker's smallest session timeout, not librdkafka's 45 s default. A re-attached Kafka table's
    // partitions sat unconsumed for 43 s under the default (kafka-rebalance, measured), 4 s under this.
    kafka: { session_timeout_ms: 6000, heartbeat_interval_ms: 1000 },
    // A replicated table that met no Keeper when its server started (or lost it during its first
    // contact) tries again after this period: 60 s by default, so a replica restarted by a kill or
    // started without Keeper stayed read-only for a minute or two after Keeper answered again
    // (26.7, measured: 57-60 s, once 120 s under a busy `ci` job), longer than a run can wait.
    merge_tree: { initialization_retry_period: 1 },
    query_log: systemLog('query_log'),
    // Where a Kafka table with kafka_handle_error_mode = 'dead_letter_queue' puts what did not parse.
    dead_letter_queue: systemLog('dead_letter_queue'),
    part_log: systemLog('part_log'),
    // Each Keeper request with the query that made it and how long its answer took: an INSERT's own Keeper wait.
    zookeeper_log: systemLog('zookeeper_log'),
    distributed_ddl: { path: '/clickhouse/task_queue/ddl' },
    storage_configuration: apartStoragePolicy(address.paths.data),
  };
  return toXml('clickhouse', body);
}

/**
 * The storage policy a table set apart from the default one is made with (`SETTINGS
 * storage_policy = 'harness_apart'`): seed 002's partition switches work within one policy only,
 * so the staged scenarios need a second one on every node to see the engine refuse a switch
 * across two. Its disk is a directory of the node's own data directory.
 */
export const APART_STORAGE_POLICY = 'harness_apart';

function apartStoragePolicy(dataPath: string): XmlElement {
  const base = dataPath.endsWith('/') ? dataPath : `${dataPath}/`;
  return {
    disks: { harness_apart_disk: { path: `${base}harness_apart_disk/` } },
    policies: { [APART_STORAGE_POLICY]: { volumes: { main: { disk: 'harness_apart_disk' } } } },
  };
}

/**
 * Wide parts only: the part-writer failpoint a chaos fault enables fails every new compact part
 * node-wide, and a log flush that fails loses what it held (26.7 measured: every query_log row
 * from before and during the fault), where the oracle needs the log whole. Every reader of the logs
 * flushes them first (`SYSTEM FLUSH LOGS`), so the periodic flush keeps the server's 7.5 s: at
 * 500 ms, part_log logged its own flushes' parts without end, an idle 2x2 cluster's nodes took 0.12
 * of a core against 0.035, and the retired parts of a `ci` job held up to 1.5 GB of memory
 * (`ram-dir.ts`) beside 6 MB of live log parts. A retired log part is never read, so it goes after
 * 30 s instead of the default 8 minutes.
 */
function systemLog(table: string): XmlElement {
  return {
    database: 'system',
    table,
    flush_interval_milliseconds: 7500,
    settings: 'min_bytes_for_wide_part = 0, old_parts_lifetime = 30',
  };
}
