import type { ShardName } from '../domain/shard-name.ts';
import type { SinkClassName } from '../domain/sink-class-name.ts';

export type HostSelectionPolicy = 'ordered_round_robin' | 'random_start';
export const HOST_SELECTION_POLICIES: readonly HostSelectionPolicy[] = ['ordered_round_robin', 'random_start'];

/** EClickHouseCodec of the original (native-protocol compression). Over HTTP, see the README. */
export type Codec = 'none' | 'lz4' | 'zstd';
export const CODECS: readonly Codec[] = ['none', 'lz4', 'zstd'];

/** The one host form a spec uses; `shards` is in canonical shard-name order. */
export type HostTopology =
  | { readonly form: 'host'; readonly host: string }
  | { readonly form: 'hosts'; readonly hosts: readonly string[] }
  | { readonly form: 'shard_hosts'; readonly shards: ReadonlyMap<ShardName, readonly string[]> };

/** Static parameters, fully defaulted, under the original names. */
export interface StaticParameters {
  /** The validated `host` / `hosts` / `shard_hosts`. */
  readonly topology: HostTopology;
  readonly port: number;
  readonly sharding_key_columns: readonly string[];
  readonly host_selection_policy: HostSelectionPolicy;
  readonly user: string;
  /** "" means no password; the variable is read when a client is created. */
  readonly password_env_var: string;
  readonly database: string;
  readonly table: string;
  readonly codec: Codec;
  readonly enable_tls: boolean;
  readonly tls_ca_files: readonly string[];
  readonly tls_ca_directory: string;
  readonly tls_skip_verification: boolean;
  /** AtMostOnceClickHouseSink only. */
  readonly at_most_once_strategy?: { readonly enabled: boolean };
}

/** Dynamic parameters, fully defaulted; durations in milliseconds. */
export interface DynamicParameters {
  readonly write_timeout: number;
  readonly retry_backoff: number;
  readonly max_insert_attempts: number;
  readonly async_insert: boolean;
  readonly replay_horizon: number;
  /** Batching classes only. */
  readonly max_rows_per_batch?: number;
  /** Batching classes only. */
  readonly max_bytes_per_batch?: number;
  /** AtMostOnceClickHouseSink only. */
  readonly at_most_once_strategy?: { readonly total_queue_bytes_limit: number };
}

/** A validated, normalized sink spec. `sink_class_name` is the canonical short name. */
export interface SinkSpec {
  readonly sink_class_name: SinkClassName;
  readonly name: string;
  readonly input_stream_ids: readonly string[];
  readonly parameters: StaticParameters;
  readonly dynamic_parameters: DynamicParameters;
}
