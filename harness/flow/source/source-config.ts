import { HarnessError } from '../../base/index.ts';
import type { StreamColumn } from '../../../sinks/index.ts';

/** What a source column carries; several `key` columns draw independent keys (salted by name). */
export type ColumnRole = 'message-id' | 'generation' | 'partition' | 'seq' | 'key' | 'payload';

export interface SourceColumn {
  readonly name: string;
  readonly role: ColumnRole;
}

/** Everything a run's sources derive from: the same config gives the same messages, always. */
export interface SourceConfig {
  readonly seed: number;
  /** The first component of every message id `<generation>-<partition>-<seq>`. */
  readonly generation: number;
  readonly partitions: number;
  readonly messagesPerEpoch: number;
  readonly columns: readonly SourceColumn[];
  /** Distinct values of each `key` column: small, so rows share keys and co-location shows. */
  readonly keySpace: number;
  /** Payload sizes in bytes, drawn uniformly per message from [min, max]. */
  readonly payloadBytes: { readonly min: number; readonly max: number };
}

export const DEFAULT_COLUMNS: readonly SourceColumn[] = [
  { name: 'id', role: 'message-id' },
  { name: 'partition', role: 'partition' },
  { name: 'seq', role: 'seq' },
  { name: 'key', role: 'key' },
  { name: 'payload', role: 'payload' },
];

const TYPES: Readonly<Record<ColumnRole, { readonly clickhouse: string; readonly stream: string }>> = {
  'message-id': { clickhouse: 'String', stream: 'string' },
  generation: { clickhouse: 'UInt32', stream: 'uint32' },
  partition: { clickhouse: 'UInt32', stream: 'uint32' },
  seq: { clickhouse: 'UInt64', stream: 'uint64' },
  key: { clickhouse: 'String', stream: 'string' },
  payload: { clickhouse: 'String', stream: 'string' },
};

/** Fills defaults and refuses configs that could not yield valid message ids or rows. */
export function sourceConfig(partial: Partial<SourceConfig> & Pick<SourceConfig, 'seed'>): SourceConfig {
  const config: SourceConfig = {
    generation: 1,
    partitions: 1,
    messagesPerEpoch: 10,
    columns: DEFAULT_COLUMNS,
    keySpace: 16,
    payloadBytes: { min: 16, max: 64 },
    ...partial,
  };
  const problems: string[] = [];
  const natural = (name: string, value: number, min: number) => {
    if (!Number.isSafeInteger(value) || value < min) problems.push(`${name} = ${value} must be an integer >= ${min}`);
  };
  natural('seed', config.seed, Number.MIN_SAFE_INTEGER);
  natural('generation', config.generation, 0);
  natural('partitions', config.partitions, 1);
  natural('messagesPerEpoch', config.messagesPerEpoch, 1);
  natural('keySpace', config.keySpace, 1);
  natural('payloadBytes.min', config.payloadBytes.min, 0);
  natural('payloadBytes.max', config.payloadBytes.max, config.payloadBytes.min);
  if (!config.columns.some((column) => column.role === 'message-id'))
    problems.push('columns must include a message-id column (the checkers count rows per message id)');
  const names = config.columns.map((column) => column.name);
  for (const name of new Set(names.filter((name, i) => names.indexOf(name) !== i)))
    problems.push(`column '${name}' is listed twice`);
  if (problems.length > 0) {
    throw new HarnessError(
      'FLOW_SOURCE_INVALID',
      `Source config refused: ${problems.join('; ')}; fix the workload definition`,
    );
  }
  return config;
}

/** The column list for `createShardedTable`, e.g. `id String, partition UInt32, ...`. */
export function columnsDdl(config: SourceConfig): string {
  return config.columns.map((column) => `${column.name} ${TYPES[column.role].clickhouse}`).join(', ');
}

/** The stream schema the sink checks against the table at session start. */
export function streamSchema(config: SourceConfig): StreamColumn[] {
  return config.columns.map((column) => ({ name: column.name, type: TYPES[column.role].stream }));
}
