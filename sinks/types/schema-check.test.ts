import { describe, expect, it } from 'vitest';
import { checkStreamAgainstTable, SchemaMismatchError, type TableColumn } from './schema-check.ts';
import type { StreamColumn } from './stream-type.ts';

const column = (name: string, type: string, default_kind = '', default_expression = ''): TableColumn => ({
  name,
  type,
  default_kind,
  default_expression,
});
const table: TableColumn[] = [
  column('id', 'UInt64'),
  column('user_id', 'Int64'),
  column('name', 'LowCardinality(String)'),
  column('code', 'FixedString(3)'),
  column('score', 'Nullable(Float64)'),
  column('at', "DateTime('UTC')"),
  column('day', 'Date', 'MATERIALIZED', 'toDate(at)'),
  column('label', 'String', 'ALIAS', 'upper(name)'),
  column('price', 'Decimal(10, 2)', 'DEFAULT', '0'),
  column('flag', 'Bool', 'DEFAULT', 'true'),
  column('extra', 'UInt32'),
];
const stream: StreamColumn[] = [
  { name: 'id', type: 'uint64' },
  { name: 'user_id', type: 'int64' },
  { name: 'name', type: 'utf8' },
  { name: 'code', type: 'string' },
  { name: 'score', type: 'optional<double>' },
  { name: 'at', type: 'datetime' },
];

function problemsOf(
  streamColumns: StreamColumn[],
  tableColumns: TableColumn[] = table,
  shardingKeyColumns: string[] = [],
): readonly string[] {
  try {
    checkStreamAgainstTable(streamColumns, tableColumns, { target: 'default.events', shardingKeyColumns });
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect((error as SchemaMismatchError).code).toBe('SINK_SCHEMA_INVALID');
    return (error as SchemaMismatchError).problems;
  }
}

describe('checkStreamAgainstTable', () => {
  it('plans the sent, defaulted and skipped columns in table order', () => {
    const plan = checkStreamAgainstTable(stream, table);
    expect(plan.sent.map((c) => c.name)).toEqual(['id', 'user_id', 'name', 'code', 'score', 'at']);
    expect(plan.sent.find((c) => c.name === 'code')?.fixedStringLength).toBe(3);
    expect(plan.defaulted).toEqual(['price', 'flag', 'extra']);
    expect(plan.skipped).toEqual(['day', 'label']);
    expect(plan.notes).toEqual([
      "column 'extra' (UInt32) is not written by the stream and has no DEFAULT: ClickHouse fills the type's default value",
    ]);
  });

  it('maps every stream type of the section 5 table', () => {
    const pairs: Array<[string, string]> = [
      ['int8', 'Int8'],
      ['int16', 'Int16'],
      ['int32', 'Int32'],
      ['int64', 'Int64'],
      ['uint8', 'UInt8'],
      ['uint16', 'UInt16'],
      ['uint32', 'UInt32'],
      ['uint64', 'UInt64'],
      ['float', 'Float32'],
      ['double', 'Float64'],
      ['string', 'String'],
      ['utf8', 'String'],
      ['string', 'FixedString(8)'],
      ['utf8', 'LowCardinality(String)'],
      ['boolean', 'Bool'],
      ['date', 'Date'],
      ['datetime', 'DateTime'],
      ['optional<int32>', 'Nullable(Int32)'],
      ['optional<string>', 'LowCardinality(Nullable(String))'],
      ['optional<datetime>', "Nullable(DateTime('UTC'))"],
    ];
    for (const [streamType, clickHouseType] of pairs) {
      expect(
        problemsOf([{ name: 'c', type: streamType }], [column('c', clickHouseType)]),
        `${streamType} -> ${clickHouseType}`,
      ).toEqual([]);
    }
  });

  it('lets a required stream column fill a Nullable column of its type', () => {
    expect(problemsOf([{ name: 'c', type: 'int64' }], [column('c', 'Nullable(Int64)')])).toEqual([]);
  });

  it('refuses a type mismatch naming column, stream type and ClickHouse type', () => {
    expect(problemsOf([{ name: 'c', type: 'int32' }], [column('c', 'Int64')])).toEqual([
      "column 'c': stream type int32 vs ClickHouse type Int64: expected a column of type Int32",
    ]);
    expect(problemsOf([{ name: 'c', type: 'float' }], [column('c', 'Float64')])).toHaveLength(1);
    expect(problemsOf([{ name: 'c', type: 'boolean' }], [column('c', 'UInt8')])).toHaveLength(1);
    expect(problemsOf([{ name: 'c', type: 'date' }], [column('c', 'DateTime')])).toHaveLength(1);
  });

  it('refuses an optional stream column into a non-Nullable column', () => {
    expect(problemsOf([{ name: 'c', type: 'uint8', required: false }], [column('c', 'UInt8')])[0]).toMatch(
      /optional but the ClickHouse column is not Nullable.*Nullable\(UInt8\)/,
    );
  });

  it('refuses writes to unsupported types but allows them in the table when not written', () => {
    expect(problemsOf([{ name: 'price', type: 'double' }], [column('price', 'Decimal(10, 2)')])[0]).toMatch(
      /column 'price': stream type double vs ClickHouse type Decimal\(10, 2\): the sink does not support/,
    );
    expect(
      problemsOf(
        [{ name: 'c', type: 'string' }],
        [column('c', 'String'), column('u', 'UUID'), column('a', 'Array(String)')],
      ),
    ).toEqual([]);
  });

  it('skips MATERIALIZED and ALIAS columns the stream produces, as the seed does, with a note for each', () => {
    const plan = checkStreamAgainstTable(
      [...stream, { name: 'day', type: 'date' }, { name: 'label', type: 'string' }],
      table,
    );
    expect(plan.sent.map((column) => column.name)).not.toContain('day');
    expect(plan.sent.map((column) => column.name)).not.toContain('label');
    expect(plan.skipped).toEqual(['day', 'label']);
    expect(plan.notes).toEqual(
      expect.arrayContaining([
        "column 'day' is MATERIALIZED (computed by ClickHouse): the stream's values for it are not sent",
        "column 'label' is ALIAS (computed by ClickHouse): the stream's values for it are not sent",
      ]),
    );
  });

  it('refuses stream columns missing from the table, duplicates, bad stream types and unproduced sharding keys, all at once', () => {
    const problems = problemsOf(
      [
        { name: 'id', type: 'uint64' },
        { name: 'id', type: 'uint64' },
        { name: 'ghost', type: 'int8' },
        { name: 'user_id', type: 'list<int64>' },
      ],
      table,
      ['tenant'],
    );
    expect(problems).toEqual([
      "stream column 'id' is declared more than once",
      "stream column 'ghost' (int8) is not a column of the table",
      expect.stringMatching(/^stream column 'user_id': stream type 'list<int64>' is not supported/),
      "sharding key column 'tenant' is not produced by the stream",
    ]);
  });

  it('names the target in the error', () => {
    expect(() => checkStreamAgainstTable([{ name: 'x', type: 'int8' }], [], { target: 'db.t' })).toThrow(
      /^The stream schema does not fit db\.t: 1 problem\(s\)/,
    );
  });
});
