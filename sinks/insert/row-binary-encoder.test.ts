import { describe, expect, it } from 'vitest';
import type { SinkMessage } from '../api.ts';
import { messageId } from '../domain/message-id.ts';
import type { Row } from '../routing/routing-key.ts';
import { parseClickHouseType } from '../types/clickhouse-type.ts';
import type { SentColumn } from '../types/schema-check.ts';
import { encodeRowBinary } from './row-binary-encoder.ts';

const column = (name: string, type: string): SentColumn => ({
  name,
  streamType: { base: 'string', optional: false },
  clickHouseType: parseClickHouseType(type),
});
const message = (row: Row, id = '1-0-7'): SinkMessage => ({ id: messageId(id), row, byteSize: 8 });
const hex = (type: string, value: Row[string]) =>
  encodeRowBinary([message({ c: value })], [column('c', type)]).toString('hex');

describe('encodeRowBinary', () => {
  it.each([
    ['Int8', -1, 'ff'],
    ['UInt8', 255, 'ff'],
    ['Int16', -2, 'feff'],
    ['UInt16', 0x1234, '3412'],
    ['Int32', -1, 'ffffffff'],
    ['UInt32', 1, '01000000'],
    ['Int64', -2n, 'feffffffffffffff'],
    ['UInt64', 18446744073709551615n, 'ffffffffffffffff'],
    ['UInt64', 5, '0500000000000000'],
    ['Float32', 1.5, '0000c03f'],
    ['Float64', -2, '00000000000000c0'],
    ['Bool', true, '01'],
    ['String', 'hé', '0368c3a9'],
    ['String', new Uint8Array([0, 255]), '0200ff'],
    ['LowCardinality(String)', 'a', '0161'],
    ['FixedString(4)', 'ab', '61620000'],
    ['Date', 19_000, '384a'],
    ['Date', new Date('2022-01-08T23:59:59Z'), '384a'],
    ['DateTime', 1_700_000_000, '00f15365'],
    ["DateTime('UTC')", new Date(1_700_000_000_999), '00f15365'],
    ['Nullable(UInt8)', null, '01'],
    ['Nullable(UInt8)', 7, '0007'],
    ['LowCardinality(Nullable(String))', undefined, '01'],
  ])('writes %s %s as %s', (type, value, expected) => {
    expect(hex(type, value)).toBe(expected);
  });

  it('writes the planned columns in order, row after row, ignoring other row fields', () => {
    const body = encodeRowBinary(
      [message({ a: 1, b: 'x', extra: 9 }), message({ a: 2, b: '' })],
      [column('a', 'UInt8'), column('b', 'String')],
    );
    expect(body.toString('hex')).toBe('01017802' + '00');
  });

  it('length-prefixes long strings with LEB128', () => {
    expect(hex('String', 'x'.repeat(300)).slice(0, 4)).toBe('ac02');
  });

  it.each([
    ['UInt8', 256, /got 256, expected an integer in 0\.\.255/],
    ['Int8', -129, /expected an integer in -128\.\.127/],
    ['UInt64', -1n, /got -1n/],
    ['Int64', 2 ** 60, /a safe-integer number or a bigint/],
    ['UInt32', 1.5, /expected an integer/],
    ['Float64', '1', /expected a number/],
    ['Bool', 1, /expected a boolean/],
    ['String', 5, /expected a string or a byte string/],
    ['UInt8', null, /got null/],
    ['String', undefined, /got no value/],
    ['Date', 70_000, /days since 1970-01-01 in 0\.\.65535/],
    ['DateTime', -1, /Unix seconds/],
    ['FixedString(2)', 'abc', /FixedString\(2\)/],
  ])('refuses %s %s as a permanent value error naming message and column', (type, value, message_) => {
    expect(() => hex(type, value)).toThrow(
      expect.objectContaining({ code: 'SINK_VALUE_INVALID', message: expect.stringMatching(message_) }),
    );
  });

  it('names the message and the column', () => {
    expect(() => encodeRowBinary([message({ c: 'x' }, '3-1-42')], [column('c', 'UInt8')])).toThrow(
      /Message 3-1-42: column 'c' \(UInt8\)/,
    );
  });
});
