import type { SinkClassDescriptor } from '../sink-classes.ts';
import { suggestion } from './closest-name.ts';
import { isJsonObject, ObjectReader, show } from './object-reader.ts';
import { DEFAULTS, LIMITS } from './parameter-catalog.ts';
import type { DynamicParameters } from './sink-spec.ts';

/**
 * The dynamic parameters, fully defaulted for the class. Kept separate from the static ones
 * because a running sink re-validates only these on dynamic reconfiguration.
 */
export function readDynamicParameters(
  reader: ObjectReader,
  sinkClass: SinkClassDescriptor | undefined,
): DynamicParameters {
  const common = {
    write_timeout: reader.duration('write_timeout', DEFAULTS.write_timeout, 1, LIMITS.timerMs),
    retry_backoff: reader.duration('retry_backoff', DEFAULTS.retry_backoff, 0, LIMITS.timerMs),
    max_insert_attempts: reader.integer('max_insert_attempts', DEFAULTS.max_insert_attempts, {
      min: 1,
      max: LIMITS.timerMs,
      rule: 'max-insert-attempts-range',
    }),
    async_insert: reader.boolean('async_insert', false),
    replay_horizon: reader.duration('replay_horizon', DEFAULTS.replay_horizon, 1, Number.MAX_SAFE_INTEGER),
  };
  if (sinkClass?.batching) {
    return {
      ...common,
      max_rows_per_batch: reader.integer('max_rows_per_batch', DEFAULTS.max_rows_per_batch, {
        ...LIMITS.max_rows_per_batch,
        rule: 'max-rows-per-batch-range',
      }),
      max_bytes_per_batch: reader.integer('max_bytes_per_batch', DEFAULTS.max_bytes_per_batch, {
        ...LIMITS.max_bytes_per_batch,
        rule: 'max-bytes-per-batch-range',
      }),
    };
  }
  if (sinkClass?.atMostOnceStrategy) return { ...common, at_most_once_strategy: readDynamicStrategy(reader) };
  return common;
}

function readDynamicStrategy(reader: ObjectReader): { total_queue_bytes_limit: number } {
  const fallback = { total_queue_bytes_limit: DEFAULTS.total_queue_bytes_limit };
  const value = reader.raw('at_most_once_strategy');
  if (value === undefined) return fallback;
  const path = reader.pathOf('at_most_once_strategy');
  if (!isJsonObject(value)) {
    reader.problems.add(
      'parameter-type',
      path,
      `must be an object like {"total_queue_bytes_limit": 16777216}, got ${show(value)}`,
    );
    return fallback;
  }
  for (const key of Object.keys(value).filter((k) => k !== 'total_queue_bytes_limit')) {
    if (key === 'enabled') {
      reader.problems.add(
        'parameter-section',
        `${path}.${key}`,
        'is static; set it under parameters.at_most_once_strategy',
      );
    } else {
      reader.problems.add(
        'parameter-unknown',
        `${path}.${key}`,
        `is not a field of at_most_once_strategy${suggestion(key, ['total_queue_bytes_limit'])}; the dynamic strategy has only total_queue_bytes_limit`,
      );
    }
  }
  const limit = new ObjectReader(value, path, reader.problems).integer(
    'total_queue_bytes_limit',
    DEFAULTS.total_queue_bytes_limit,
    {
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
      rule: 'total-queue-bytes-limit-range',
    },
  );
  return { total_queue_bytes_limit: limit };
}
