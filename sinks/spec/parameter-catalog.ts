import type { SinkClassDescriptor } from '../sink-classes.ts';

export type ParameterSection = 'parameters' | 'dynamic_parameters';

/** Which classes take a parameter: all, or those with a mechanism flag set. */
type Audience = 'all' | 'batching' | 'atMostOnceStrategy';

const STATIC: Readonly<Record<string, Audience>> = {
  host: 'all',
  port: 'all',
  hosts: 'all',
  shard_hosts: 'all',
  sharding_key_columns: 'all',
  host_selection_policy: 'all',
  user: 'all',
  password_env_var: 'all',
  database: 'all',
  table: 'all',
  codec: 'all',
  enable_tls: 'all',
  tls_ca_files: 'all',
  tls_ca_directory: 'all',
  tls_skip_verification: 'all',
  at_most_once_strategy: 'atMostOnceStrategy',
};

const DYNAMIC: Readonly<Record<string, Audience>> = {
  write_timeout: 'all',
  retry_backoff: 'all',
  max_insert_attempts: 'all',
  async_insert: 'all',
  replay_horizon: 'all',
  max_rows_per_batch: 'batching',
  max_bytes_per_batch: 'batching',
  at_most_once_strategy: 'atMostOnceStrategy',
};

export const PARAMETER_NAMES: Readonly<Record<ParameterSection, readonly string[]>> = {
  parameters: Object.keys(STATIC),
  dynamic_parameters: Object.keys(DYNAMIC),
};

const AUDIENCE_TEXT: Readonly<Record<Exclude<Audience, 'all'>, string>> = {
  batching: 'the batching classes (ClickHouseBatchingSink, ShardedClickHouseBatchingSink)',
  atMostOnceStrategy: 'AtMostOnceClickHouseSink',
};

export type ParameterLookup =
  | { readonly kind: 'accepted' }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'other-section'; readonly section: ParameterSection }
  | { readonly kind: 'other-class'; readonly audience: string };

/** Whether `name` belongs in `section` for this class (undefined class: any known class). */
export function lookUpParameter(
  section: ParameterSection,
  name: string,
  sinkClass: SinkClassDescriptor | undefined,
): ParameterLookup {
  const table = section === 'parameters' ? STATIC : DYNAMIC;
  const audience = Object.hasOwn(table, name) ? table[name] : undefined;
  if (audience === undefined) {
    const other: ParameterSection = section === 'parameters' ? 'dynamic_parameters' : 'parameters';
    return PARAMETER_NAMES[other].includes(name) ? { kind: 'other-section', section: other } : { kind: 'unknown' };
  }
  if (audience === 'all' || sinkClass === undefined || sinkClass[audience]) return { kind: 'accepted' };
  return { kind: 'other-class', audience: AUDIENCE_TEXT[audience] };
}

/** Defaults of section 6 (and the choices documented in the README where the seed gives none). */
export const DEFAULTS = {
  port: 8123,
  host_selection_policy: 'ordered_round_robin',
  user: 'default',
  password_env_var: '',
  database: 'default',
  codec: 'lz4',
  write_timeout: 60_000,
  retry_backoff: 1_000,
  max_insert_attempts: 10,
  replay_horizon: 86_400_000,
  max_rows_per_batch: 1000,
  max_bytes_per_batch: 5_242_880,
  total_queue_bytes_limit: 16 * 1024 * 1024,
} as const;

export const LIMITS = {
  max_rows_per_batch: { min: 1, max: 2000 },
  max_bytes_per_batch: { min: 1, max: 10 * 1024 * 1024 },
  /** Node timers cap at 2^31-1 ms (about 24.8 days). */
  timerMs: 2 ** 31 - 1,
} as const;
