import { HarnessError } from '../../base/index.ts';
import type { Row, RowValue, StreamColumn } from '../../../sinks/index.ts';
import { mix32 } from './mix.ts';
import { TYPED_COLUMN_NAMES, TYPED_COLUMNS, typedColumn, typedColumnNamed, UNWRITTEN_COLUMN } from './typed-columns.ts';

/**
 * What a source column carries; several `key` columns draw independent keys (salted by name); a
 * `typed` column is one of the type catalogue's (`typed-columns.ts`), named as it names it.
 */
export type ColumnRole = 'message-id' | 'generation' | 'partition' | 'seq' | 'key' | 'payload' | 'typed';

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
  /**
   * The order the table declares its columns in: 0 keeps the stream's (the columns it does not
   * write after them); any other value is the seed of a permutation, so that a sink that writes
   * values by position rather than by name meets a table whose order is not the stream's.
   */
  readonly tableShuffle: number;
}

export const DEFAULT_COLUMNS: readonly SourceColumn[] = [
  { name: 'id', role: 'message-id' },
  { name: 'partition', role: 'partition' },
  { name: 'seq', role: 'seq' },
  { name: 'key', role: 'key' },
  { name: 'payload', role: 'payload' },
];

const TYPES: Readonly<Record<Exclude<ColumnRole, 'typed'>, { readonly clickhouse: string; readonly stream: string }>> =
  {
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
    tableShuffle: 0,
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
  natural('tableShuffle', config.tableShuffle, 0);
  for (const column of config.columns)
    if (column.role === 'typed' && typedColumn(column.name) === undefined)
      problems.push(`column '${column.name}' is no typed column of the catalogue (${TYPED_COLUMN_NAMES.join(', ')})`);
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

/** A column's ClickHouse and stream types. */
export function columnTypes(column: SourceColumn): { readonly clickhouse: string; readonly stream: string } {
  return column.role === 'typed' ? typedColumnNamed(column.name) : TYPES[column.role];
}

/**
 * The column list for `createShardedTable`, e.g. `id String, partition UInt32, ...`. With typed
 * columns, the table also holds every typed column of the catalogue the stream does not write and
 * one of a type the sinks cannot write: the server fills them (a type's default, NULL, or the
 * column's DEFAULT). The order is the stream's, or a permutation drawn from `tableShuffle`.
 */
export function columnsDdl(config: SourceConfig): string {
  const typed = config.columns.some((column) => column.role === 'typed');
  const written = new Set(config.columns.map((column) => column.name));
  const declared = [
    ...config.columns.map((column) => `${column.name} ${columnTypes(column).clickhouse}`),
    ...(typed
      ? [
          ...TYPED_COLUMNS.filter((column) => !written.has(column.name)).map(
            (column) => `${column.name} ${column.clickhouse}`,
          ),
          `${UNWRITTEN_COLUMN.name} ${UNWRITTEN_COLUMN.ddl}`,
        ]
      : []),
  ];
  return shuffled(declared, config.tableShuffle).join(', ');
}

/** A permutation of `items` drawn from `shuffle` (Fisher-Yates over `mix32`); 0 leaves them as they are. */
function shuffled<T>(items: readonly T[], shuffle: number): T[] {
  const out = [...items];
  if (shuffle === 0) return out;
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = mix32(shuffle, i) % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** The stream schema the sink checks against the table at session start. */
export function streamSchema(config: SourceConfig): StreamColumn[] {
  return config.columns.map((column) => ({ name: column.name, type: columnTypes(column).stream }));
}

/**
 * The row as the stored side reads it back (`storedColumnSql`): each typed value in the unit the
 * server keeps (a JS Date as days or seconds, a short FixedString padded with NUL).
 */
export function expectedStoredRow(config: SourceConfig, row: Row): Row {
  const stored: Record<string, RowValue> = { ...row };
  for (const column of config.columns) {
    const convert = column.role === 'typed' ? typedColumn(column.name)?.stored : undefined;
    if (convert !== undefined) stored[column.name] = convert(row[column.name]);
  }
  return stored;
}

/** The stream's columns with their ClickHouse types: how the stored side reads each (`storedColumnSql`). */
export function storedColumns(config: SourceConfig): { readonly name: string; readonly clickhouse: string }[] {
  return config.columns.map((column) => ({ name: column.name, clickhouse: columnTypes(column).clickhouse }));
}
