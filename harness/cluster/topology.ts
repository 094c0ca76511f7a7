import { HarnessError } from '../base/index.ts';

/** What the user asks for: `--shards N --replicas M --keepers K [--shard-names a,b]`. */
export interface TopologySpec {
  readonly shards: number;
  readonly replicas: number;
  readonly keepers: number;
  /** One name per shard (default `s1`, `s2`, ...): the `{shard}` macro and the replica names' prefix. */
  readonly shardNames?: readonly string[];
  /** Apache Kafka brokers beside the cluster (`--kafka N`): 0 (default), 1 or 3. */
  readonly kafka?: number;
}

/** What a shard name may hold: it reaches macros, Keeper paths, proxy and file names. */
const SHARD_NAME = /^[A-Za-z0-9_-]{1,16}$/;

export const DEFAULT_TOPOLOGY: TopologySpec = { shards: 2, replicas: 2, keepers: 1 };

/** The ClickHouse cluster name used in `remote_servers`, `Distributed(...)` and the `{cluster}` macro. */
export const CLUSTER_NAME = 'chaos';

export interface ReplicaPlan {
  /** `s1r1`: unique across the cluster, also the `{replica}` macro and the proxy-name prefix. */
  readonly name: string;
  readonly shard: string;
  readonly shardIndex: number;
  readonly replicaIndex: number;
}

export interface ShardPlan {
  /** `s1`: the `{shard}` macro, so Keeper paths are `/clickhouse/tables/s1/<db>/<table>`. */
  readonly name: string;
  readonly replicas: readonly ReplicaPlan[];
}

export interface KeeperPlan {
  /** `k1`.. */
  readonly name: string;
  /** 1-based id: ZooKeeper `myid`, Keeper `server_id`. */
  readonly id: number;
}

export interface TopologyPlan {
  readonly spec: TopologySpec;
  readonly shards: readonly ShardPlan[];
  readonly keepers: readonly KeeperPlan[];
  readonly replicas: readonly ReplicaPlan[];
  /** `kf1`..: node ids 1.. */
  readonly brokers: readonly KeeperPlan[];
}

const LIMITS = { shards: [1, 8], replicas: [1, 4], keepers: [1, 5] } as const;

export function validateTopology(spec: TopologySpec): TopologySpec {
  for (const key of ['shards', 'replicas', 'keepers'] as const) {
    const value = spec[key];
    const [min, max] = LIMITS[key];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new HarnessError(
        'TOPOLOGY_INVALID',
        `--${key} must be a whole number from ${min} to ${max}, got ${String(value)}`,
      );
    }
  }
  if (spec.shardNames !== undefined) {
    const names = spec.shardNames;
    if (names.length !== spec.shards)
      throw new HarnessError(
        'TOPOLOGY_INVALID',
        `--shard-names gives ${names.length} name(s) for ${spec.shards} shard(s)`,
      );
    const bad = names.find((name) => !SHARD_NAME.test(name));
    if (bad !== undefined)
      throw new HarnessError('TOPOLOGY_INVALID', `shard name '${bad}' must be 1 to 16 letters, digits, '_' or '-'`);
    if (new Set(names).size !== names.length)
      throw new HarnessError('TOPOLOGY_INVALID', `--shard-names names a shard twice: ${names.join(',')}`);
  }
  if (spec.kafka !== undefined && ![0, 1, 3].includes(spec.kafka))
    throw new HarnessError(
      'TOPOLOGY_INVALID',
      `--kafka must be 0, 1 or 3 (one broker, or three that outlive one lost), got ${String(spec.kafka)}`,
    );
  if (spec.keepers % 2 === 0) {
    throw new HarnessError(
      'TOPOLOGY_INVALID',
      `--keepers ${spec.keepers} cannot form a useful quorum; use an odd number (1 or 3)`,
    );
  }
  return spec;
}

export function planTopology(spec: TopologySpec): TopologyPlan {
  validateTopology(spec);
  const shards: ShardPlan[] = [];
  for (let s = 1; s <= spec.shards; s++) {
    const shard = spec.shardNames?.[s - 1] ?? `s${s}`;
    const replicas: ReplicaPlan[] = [];
    for (let r = 1; r <= spec.replicas; r++) {
      replicas.push({ name: `${shard}r${r}`, shard, shardIndex: s, replicaIndex: r });
    }
    shards.push({ name: shard, replicas });
  }
  const keepers: KeeperPlan[] = [];
  for (let k = 1; k <= spec.keepers; k++) keepers.push({ name: `k${k}`, id: k });
  const brokers = Array.from({ length: spec.kafka ?? 0 }, (_, i) => ({ name: `kf${i + 1}`, id: i + 1 }));
  return { spec, shards, keepers, replicas: shards.flatMap((shard) => shard.replicas), brokers };
}

/**
 * The loopback address of a replica's client proxy. Every client proxy shares one port on its own
 * address, so a sink spec can name replicas the way the original does: `hosts` with one `port`.
 */
export function clientProxyHost(replica: Pick<ReplicaPlan, 'shardIndex' | 'replicaIndex'>): string {
  return `127.10.${replica.shardIndex}.${replica.replicaIndex}`;
}

/** Proxy names, after the house convention `s1r1_client`, `s1r1_keeper_k1`, `s1r1_interserver`. */
export const proxyNames = {
  client: (replica: string) => `${replica}_client`,
  keeper: (replica: string, keeper: string) => `${replica}_keeper_${keeper}`,
  interserver: (replica: string) => `${replica}_interserver`,
  /** A client's link to a broker: `s1r1_kafka_kf1`, and the harness producer's `producer_kafka_kf1`. */
  kafka: (client: string, broker: string) => `${client}_kafka_${broker}`,
};

/** The harness's own Kafka client, beside the replicas: it produces the source to the topic. */
export const KAFKA_PRODUCER = 'producer';
