import fc from 'fast-check';
import { type HostForm, SINK_CLASSES, type SinkClassName } from '../../sinks/index.ts';
import type { ClusterEndpoints } from './cluster-endpoints.ts';

/** A sink spec as a user writes it (JSON), before validation. */
export interface RawSinkSpec {
  readonly sink_class_name: string;
  readonly name: string;
  readonly parameters: Record<string, unknown>;
  readonly dynamic_parameters: Record<string, unknown>;
}

export interface SpecTarget {
  readonly sinkClass: SinkClassName;
  readonly name: string;
  readonly database: string;
  readonly table: string;
  readonly endpoints: ClusterEndpoints;
  /** Who the sink connects as (`user`, `password_env_var`); absent: the seed's defaults. */
  readonly credentials?: { readonly user: string; readonly password_env_var?: string } | undefined;
}

/**
 * The sharding keys a keyed spec draws: the String `key`, and columns of the typed catalogue of
 * each kind the routing encodes apart (a 64-bit integer the stream gives as a bigint, a small one
 * as a number, a nullable text, a Bool beside an integer). Shrinks to `key`. A scenario whose
 * workload has no typed columns keeps to `key` (`keyColumnSets`).
 */
export const KEY_COLUMN_SETS: readonly (readonly string[])[] = [
  ['key'],
  ['t_int64'],
  ['key', 't_int16'],
  ['t_nullable_text'],
  ['t_bool', 't_uint64'],
  ['t_text'],
];

function hostForm(
  form: HostForm,
  endpoints: ClusterEndpoints,
  keyColumnSets: readonly (readonly string[])[],
): fc.Arbitrary<Record<string, unknown>> {
  const shards = [...endpoints.shards];
  const [firstShard] = shards;
  if (firstShard === undefined) throw new Error('the cluster has no shard');
  switch (form) {
    case 'host':
      return fc.constantFrom(...firstShard[1]).map((host) => ({ host }));
    case 'hosts':
      return fc.constant(firstShard[1].length > 1 ? { hosts: [...firstShard[1]] } : { host: firstShard[1][0] });
    case 'shard_hosts':
      return fc
        .record({ keyed: fc.boolean(), reversed: fc.boolean(), keys: fc.constantFrom(...keyColumnSets) })
        .map(({ keyed, reversed, keys }) => ({
          shard_hosts: Object.fromEntries(
            shards.map(([name, hosts]) => [name, reversed ? [...hosts].reverse() : [...hosts]]),
          ),
          ...(keyed ? { sharding_key_columns: [...keys] } : {}),
        }));
  }
}

/**
 * A whole dynamic section for the class: batch limits small enough that epochs cut several
 * batches, retries fast enough for a chaos run, a write timeout a chaos hold can exceed, and
 * `async_insert` either way (shrinking to off). An engine that runs async inserts synchronously
 * still sees the settings on the wire, and the async-insert checker judges them there.
 */
export function arbDynamicParameters(sinkClass: SinkClassName): fc.Arbitrary<Record<string, unknown>> {
  const descriptor = SINK_CLASSES[sinkClass];
  return fc
    .record({
      retry_backoff: fc.integer({ min: 20, max: 150 }),
      write_timeout: fc.integer({ min: 3000, max: 6000 }),
      max_insert_attempts: fc.integer({ min: 4, max: 10 }),
      max_rows_per_batch: fc.integer({ min: 1, max: 16 }),
      max_bytes_per_batch: fc.oneof(fc.constant(5_242_880), fc.integer({ min: 64, max: 4096 })),
      queue_limit: fc.integer({ min: 1 << 16, max: 1 << 22 }),
      async_insert: fc.boolean(),
    })
    .map(({ queue_limit, max_rows_per_batch, max_bytes_per_batch, ...common }) => ({
      ...common,
      ...(descriptor.batching ? { max_rows_per_batch, max_bytes_per_batch } : {}),
      ...(descriptor.atMostOnceStrategy ? { at_most_once_strategy: { total_queue_bytes_limit: queue_limit } } : {}),
    }));
}

/** Every host form the class accepts, its dynamic section, and at-most-once in both strategy modes. */
export function arbSinkSpec(
  target: SpecTarget,
  options: { forms?: readonly HostForm[]; keyColumnSets?: readonly (readonly string[])[] } = {},
): fc.Arbitrary<RawSinkSpec> {
  const descriptor = SINK_CLASSES[target.sinkClass];
  const forms = descriptor.hostForms.filter((form) => options.forms === undefined || options.forms.includes(form));
  const form = fc
    .constantFrom(...forms)
    .chain((chosen) => hostForm(chosen, target.endpoints, options.keyColumnSets ?? KEY_COLUMN_SETS));
  const dynamic = arbDynamicParameters(target.sinkClass);
  return fc
    .record({ form, dynamic, ordered: fc.boolean(), policy: fc.constantFrom('ordered_round_robin', 'random_start') })
    .map(({ form, dynamic, ordered, policy }) => {
      return {
        sink_class_name: target.sinkClass,
        name: target.name,
        parameters: {
          ...form,
          port: target.endpoints.port,
          database: target.database,
          table: target.table,
          host_selection_policy: policy,
          ...(target.credentials === undefined
            ? {}
            : {
                user: target.credentials.user,
                ...(target.credentials.password_env_var
                  ? { password_env_var: target.credentials.password_env_var }
                  : {}),
              }),
          ...(descriptor.atMostOnceStrategy ? { at_most_once_strategy: { enabled: !ordered } } : {}),
        },
        dynamic_parameters: dynamic,
      };
    });
}
