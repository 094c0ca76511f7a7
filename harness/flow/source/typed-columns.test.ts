import { describe, expect, it } from 'vitest';
import { encodeRowBinary } from '../../../sinks/insert/row-binary-encoder.ts';
import { parseClickHouseType } from '../../../sinks/types/clickhouse-type.ts';
import { DeterministicSource } from './deterministic-source.ts';
import {
  columnsDdl,
  DEFAULT_COLUMNS,
  expectedStoredRow,
  sourceConfig,
  streamSchema,
  type SourceConfig,
} from './source-config.ts';
import { storedColumnSql, TYPED_COLUMNS } from './typed-columns.ts';

const config = sourceConfig({
  seed: 11,
  partitions: 1,
  columns: [...DEFAULT_COLUMNS, ...TYPED_COLUMNS.map((column) => ({ name: column.name, role: 'typed' as const }))],
});
const messages = new DeterministicSource(config, 0).read(0, 400);
/** The table's column declarations, one per column (a type's own commas kept). */
const declarations = (of: SourceConfig) => columnsDdl(sourceConfig(of)).split(/, (?=\w+ )/);

describe('the typed columns of the seed’s type mapping', () => {
  it('give the same values for the same message, whenever asked', () => {
    expect(new DeterministicSource(config, 0).read(123, 2)).toEqual(messages.slice(123, 125));
  });

  it('meet the extremes of each integer type and both nulls and values in nullable ones', () => {
    const values = (name: string) => messages.map((message) => message.row[name]);
    expect(values('t_int8')).toEqual(expect.arrayContaining([-128, 127, 0, -1]));
    expect(values('t_uint64')).toEqual(expect.arrayContaining([0n, (1n << 64n) - 1n]));
    expect(values('t_int64')).toEqual(expect.arrayContaining([-(1n << 63n), (1n << 63n) - 1n]));
    expect(values('t_nullable_text')).toContain(null);
    expect(values('t_nullable_text').some((value) => typeof value === 'string')).toBe(true);
    expect(values('t_date').some((value) => value instanceof Date)).toBe(true);
    expect(values('t_datetime_utc')).toEqual(expect.arrayContaining([0, 2 ** 32 - 1]));
  });

  it('are every one written by the sink’s RowBinary encoder without a refusal', () => {
    const columns = TYPED_COLUMNS.map((column) => ({
      name: column.name,
      clickHouseType: parseClickHouseType(column.clickhouse),
    }));
    for (const column of columns) expect(column.clickHouseType.kind, column.name).not.toBe('unsupported');
    expect(encodeRowBinary(messages, columns as never).byteLength).toBeGreaterThan(messages.length * 40);
  });

  it('expect a stored row in the server’s units: days, seconds, a FixedString padded with NUL', () => {
    const row = { t_date: new Date(Date.UTC(2024, 0, 2, 13)), t_datetime_utc: new Date(1500), t_fixed: 'ab' };
    expect(expectedStoredRow(config, row)).toEqual({ t_date: 19724, t_datetime_utc: 1, t_fixed: 'ab\0\0\0\0\0\0' });
  });

  it('make the table with every typed column and one of a type the sinks do not write, left to its default', () => {
    const ddl = columnsDdl(config);
    expect(ddl).toContain("t_datetime_st_johns DateTime('America/St_Johns')");
    expect(ddl.endsWith('t_unwritten_decimal Decimal(18, 4) DEFAULT 0')).toBe(true);
    expect(streamSchema(config).map((column) => column.name)).not.toContain('t_unwritten_decimal');
  });

  it('make the table with the typed columns a stream leaves out, so the server fills them', () => {
    const few = sourceConfig({ ...config, columns: [...DEFAULT_COLUMNS, { name: 't_int8', role: 'typed' }] });
    const declared = declarations(few);
    expect(declared.slice(0, 6)).toEqual([
      'id String',
      'partition UInt32',
      'seq UInt64',
      'key String',
      'payload String',
      't_int8 Int8',
    ]);
    expect(declared).toContain('t_nullable_text Nullable(String)');
    expect(declared).toHaveLength(DEFAULT_COLUMNS.length + TYPED_COLUMNS.length + 1);
  });

  it('make the table in a permutation drawn from tableShuffle: the same columns, another order, the same for the same value', () => {
    const inOrder = declarations(config);
    const shuffledOnce = declarations({ ...config, tableShuffle: 77 });
    expect(shuffledOnce).not.toEqual(inOrder);
    expect([...shuffledOnce].sort()).toEqual([...inOrder].sort());
    expect(declarations({ ...config, tableShuffle: 77 })).toEqual(shuffledOnce);
    expect(declarations({ ...config, tableShuffle: 78 })).not.toEqual(shuffledOnce);
  });

  it('read dates, times and Float32 in the units the source compares in', () => {
    expect(storedColumnSql('t_date', 'Date')).toBe('toInt32(`t_date`) AS `t_date`');
    expect(storedColumnSql('d', "Nullable(DateTime('Europe/Moscow'))")).toBe('toUInt32(`d`) AS `d`');
    expect(storedColumnSql('f', 'Float32')).toBe('toFloat64(`f`) AS `f`');
    expect(storedColumnSql('s', 'LowCardinality(String)')).toBe('`s`');
  });
});
