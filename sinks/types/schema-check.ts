import { SinkError } from '../errors.ts';
import { formatClickHouseType, parseClickHouseType, type ClickHouseType } from './clickhouse-type.ts';
import {
  formatStreamType,
  parseStreamType,
  type StreamBaseType,
  type StreamColumn,
  type StreamType,
} from './stream-type.ts';

/** A row of `system.columns` as the write session reads it, in table order. */
export interface TableColumn {
  readonly name: string;
  readonly type: string;
  /** '' | 'DEFAULT' | 'MATERIALIZED' | 'ALIAS' | 'EPHEMERAL' */
  readonly default_kind: string;
  readonly default_expression: string;
}

export interface SentColumn {
  readonly name: string;
  readonly streamType: StreamType;
  readonly clickHouseType: ClickHouseType;
  /** Set for FixedString(N) columns: every value is checked against it at write time. */
  readonly fixedStringLength?: number;
}

/** How a validated stream maps onto the table. */
export interface ColumnPlan {
  /** The columns each INSERT names, in table order. */
  readonly sent: readonly SentColumn[];
  /** Table columns the stream does not write: ClickHouse fills them. */
  readonly defaulted: readonly string[];
  /** MATERIALIZED and ALIAS columns: computed by ClickHouse, never sent. */
  readonly skipped: readonly string[];
  /** Facts worth a warning, e.g. a defaulted column without an explicit DEFAULT. */
  readonly notes: readonly string[];
}

/** A permanent validation error: retrying cannot fix a schema. */
export class SchemaMismatchError extends SinkError {
  constructor(
    readonly problems: readonly string[],
    target: string,
  ) {
    super(
      'SINK_SCHEMA_INVALID',
      [
        `The stream schema does not fit ${target}: ${problems.length} problem(s)`,
        ...problems.map((p) => `  - ${p}`),
      ].join('\n'),
    );
  }
}

const NATIVE: Readonly<Record<StreamBaseType, string>> = {
  int8: 'Int8',
  int16: 'Int16',
  int32: 'Int32',
  int64: 'Int64',
  uint8: 'UInt8',
  uint16: 'UInt16',
  uint32: 'UInt32',
  uint64: 'UInt64',
  float: 'Float32',
  double: 'Float64',
  boolean: 'Bool',
  date: 'Date',
  string: 'String',
  utf8: 'String',
  datetime: 'DateTime',
};

/**
 * Checks a stream schema against the target table (section 5) and plans the INSERT columns.
 * Refuses, all at once: a stream column missing from the table, a write to a MATERIALIZED or
 * ALIAS column, a write to a column of an unsupported type, a type mismatch, an optional stream
 * column into a non-Nullable column, duplicate stream columns and sharding key columns the
 * stream does not produce. A required stream column may go into Nullable(T) of its type.
 */
export function checkStreamAgainstTable(
  stream: readonly StreamColumn[],
  table: readonly TableColumn[],
  options: { readonly target?: string; readonly shardingKeyColumns?: readonly string[] } = {},
): ColumnPlan {
  const problems: string[] = [];
  const tableByName = new Map(table.map((column) => [column.name, column]));
  const streamTypes = new Map<string, StreamType>();

  for (const column of stream) {
    if (streamTypes.has(column.name)) {
      problems.push(`stream column '${column.name}' is declared more than once`);
      continue;
    }
    const parsed = parseStreamType(column);
    if (!parsed.ok) {
      problems.push(`stream column '${column.name}': ${parsed.reason}`);
      continue;
    }
    streamTypes.set(column.name, parsed.type);
    const target = tableByName.get(column.name);
    if (!target) problems.push(`stream column '${column.name}' (${column.type}) is not a column of the table`);
  }
  for (const key of options.shardingKeyColumns ?? []) {
    if (!stream.some((column) => column.name === key))
      problems.push(`sharding key column '${key}' is not produced by the stream`);
  }

  const sent: SentColumn[] = [];
  const defaulted: string[] = [];
  const skipped: string[] = [];
  const notes: string[] = [];
  for (const column of table) {
    const streamType = streamTypes.get(column.name);
    const computed = column.default_kind === 'MATERIALIZED' || column.default_kind === 'ALIAS';
    if (computed) {
      // The seed skips them: ClickHouse computes the value, so the stream's is not sent.
      skipped.push(column.name);
      if (streamType)
        notes.push(
          `column '${column.name}' is ${column.default_kind} (computed by ClickHouse): the stream's values for it are not sent`,
        );
      continue;
    }
    if (!streamType) {
      defaulted.push(column.name);
      if (column.default_kind === '') {
        notes.push(
          `column '${column.name}' (${column.type}) is not written by the stream and has no DEFAULT: ClickHouse fills the type's default value`,
        );
      }
      continue;
    }
    const clickHouseType = parseClickHouseType(column.type);
    const mismatch = describeMismatch(streamType, clickHouseType);
    if (mismatch) {
      problems.push(
        `column '${column.name}': stream type ${formatStreamType(streamType)} vs ClickHouse type ${column.type}: ${mismatch}`,
      );
      continue;
    }
    const fixedStringLength = fixedLengthOf(clickHouseType);
    sent.push({
      name: column.name,
      streamType,
      clickHouseType,
      ...(fixedStringLength === undefined ? {} : { fixedStringLength }),
    });
  }

  if (problems.length > 0) throw new SchemaMismatchError(problems, options.target ?? 'the target table');
  return { sent, defaulted, skipped, notes };
}

function describeMismatch(stream: StreamType, type: ClickHouseType): string | undefined {
  if (type.kind === 'unsupported')
    return 'the sink does not support this ClickHouse type; a stream may not write it (leave it to its DEFAULT)';
  const { nullable, inner } = unwrap(type);
  if (stream.optional && !nullable) {
    return `the stream column is optional but the ClickHouse column is not Nullable, so a NULL would silently become the type default; make it Nullable(${formatClickHouseType(inner)}) or the stream column required`;
  }
  if (!baseMatches(stream.base, inner)) return `expected a column of type ${expectedFor(stream.base)}`;
  return undefined;
}

function unwrap(type: ClickHouseType): { nullable: boolean; inner: ClickHouseType } {
  if (type.kind === 'low_cardinality') return unwrap(type.inner);
  if (type.kind === 'nullable') return { nullable: true, inner: type.inner };
  return { nullable: false, inner: type };
}

function baseMatches(base: StreamBaseType, type: ClickHouseType): boolean {
  if (base === 'string' || base === 'utf8')
    return (type.kind === 'scalar' && type.name === 'String') || type.kind === 'fixed_string';
  if (base === 'datetime') return type.kind === 'datetime';
  return type.kind === 'scalar' && type.name === NATIVE[base];
}

function expectedFor(base: StreamBaseType): string {
  if (base === 'string' || base === 'utf8') return 'String, FixedString(N) or LowCardinality(String)';
  if (base === 'datetime') return "DateTime or DateTime('tz')";
  return NATIVE[base];
}

function fixedLengthOf(type: ClickHouseType): number | undefined {
  const { inner } = unwrap(type);
  return inner.kind === 'fixed_string' ? inner.length : undefined;
}
