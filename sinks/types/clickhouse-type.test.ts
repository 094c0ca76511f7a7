import { describe, expect, it } from 'vitest';
import { formatClickHouseType, parseClickHouseType } from './clickhouse-type.ts';

describe('parseClickHouseType', () => {
  it.each([
    'Int8',
    'Int16',
    'Int32',
    'Int64',
    'UInt8',
    'UInt16',
    'UInt32',
    'UInt64',
    'Float32',
    'Float64',
    'String',
    'Bool',
    'Date',
  ])('reads %s', (name) => {
    expect(parseClickHouseType(name)).toEqual({ kind: 'scalar', name });
  });

  it('reads the parameterized and wrapped types', () => {
    expect(parseClickHouseType('FixedString(16)')).toEqual({ kind: 'fixed_string', length: 16 });
    expect(parseClickHouseType('DateTime')).toEqual({ kind: 'datetime' });
    expect(parseClickHouseType("DateTime('Europe/Moscow')")).toEqual({ kind: 'datetime', timezone: 'Europe/Moscow' });
    expect(parseClickHouseType('Nullable(Int64)')).toEqual({
      kind: 'nullable',
      inner: { kind: 'scalar', name: 'Int64' },
    });
    expect(parseClickHouseType('LowCardinality(String)')).toEqual({
      kind: 'low_cardinality',
      inner: { kind: 'scalar', name: 'String' },
    });
    expect(parseClickHouseType('LowCardinality(Nullable(String))')).toEqual({
      kind: 'low_cardinality',
      inner: { kind: 'nullable', inner: { kind: 'scalar', name: 'String' } },
    });
    expect(parseClickHouseType("Nullable(DateTime('UTC'))")).toEqual({
      kind: 'nullable',
      inner: { kind: 'datetime', timezone: 'UTC' },
    });
  });

  it.each([
    'Decimal(10, 2)',
    'Decimal64(4)',
    "DateTime64(3, 'UTC')",
    'DateTime64(3)',
    "Enum8('a' = 1, 'b' = 2)",
    'UUID',
    'IPv4',
    'IPv6',
    'Array(String)',
    'Tuple(a String, b UInt8)',
    'Map(String, UInt64)',
    'Nested(a String)',
    'Date32',
    'Int128',
    'JSON',
    'Dynamic',
    'Variant(String, UInt64)',
    'SimpleAggregateFunction(sum, UInt64)',
    'LowCardinality(UInt64)',
    'Nullable(Array(String))',
    'Nullable(Nullable(Int8))',
    'FixedString(0)',
    'FixedString(n)',
    'String(',
    'Int8)',
    '',
  ])('treats %j as unsupported', (text) => {
    expect(parseClickHouseType(text)).toEqual({ kind: 'unsupported', text });
  });

  it('round-trips through formatClickHouseType', () => {
    for (const text of [
      'UInt64',
      'FixedString(3)',
      "DateTime('Asia/Tokyo')",
      'Nullable(Float32)',
      'LowCardinality(Nullable(String))',
      'Decimal(9, 2)',
    ]) {
      expect(formatClickHouseType(parseClickHouseType(text))).toBe(text);
    }
  });
});
