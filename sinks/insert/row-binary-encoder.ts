import { SinkError } from '../errors.ts';
import type { SinkMessage } from '../api.ts';
import type { MessageId } from '../domain/message-id.ts';
import type { RowValue } from '../routing/routing-key.ts';
import { formatClickHouseType, type ClickHouseScalar, type ClickHouseType } from '../types/clickhouse-type.ts';
import { checkFixedStringValue } from '../types/fixed-string.ts';
import type { SentColumn } from '../types/schema-check.ts';
import { ByteWriter } from './byte-writer.ts';

/** Writes one cell; `message` only serves the error message. */
type ValueWriter = (out: ByteWriter, value: RowValue, message: MessageId) => void;
interface Column {
  readonly name: string;
  readonly type: string;
}

const DAY_MS = 86_400_000;
const INTEGERS: Partial<Record<ClickHouseScalar, { bytes: 1 | 2 | 4 | 8; signed: boolean }>> = {
  Int8: { bytes: 1, signed: true },
  Int16: { bytes: 2, signed: true },
  Int32: { bytes: 4, signed: true },
  Int64: { bytes: 8, signed: true },
  UInt8: { bytes: 1, signed: false },
  UInt16: { bytes: 2, signed: false },
  UInt32: { bytes: 4, signed: false },
  UInt64: { bytes: 8, signed: false },
};

/**
 * Encodes rows as RowBinary for the planned columns, in plan order. RowBinary rather than
 * JSONEachRow: byte strings and 64-bit integers travel exactly (JSON has neither), and the server
 * does no text parsing. Every value is checked against its column's type first (FixedString
 * length, integer range, the value's JS type); a bad value fails the whole INSERT before anything
 * is sent, as a permanent `SINK_VALUE_INVALID`.
 */
export function encodeRowBinary(messages: readonly SinkMessage[], columns: readonly SentColumn[]): Buffer {
  const writers = columns.map((column) => ({
    name: column.name,
    write: writerFor(column.clickHouseType, { name: column.name, type: formatClickHouseType(column.clickHouseType) }),
  }));
  const out = new ByteWriter(
    Math.max(
      4096,
      messages.reduce((sum, message) => sum + message.byteSize, 0),
    ),
  );
  for (const message of messages) {
    for (const writer of writers) writer.write(out, message.row[writer.name], message.id);
  }
  return out.finish();
}

function writerFor(type: ClickHouseType, column: Column): ValueWriter {
  switch (type.kind) {
    case 'nullable': {
      const inner = writerFor(type.inner, column);
      return (out, value, message) => {
        if (value === null || value === undefined) return out.uint8(1);
        out.uint8(0);
        inner(out, value, message);
      };
    }
    case 'low_cardinality':
      // RowBinary carries LowCardinality(T) as plain T.
      return writerFor(type.inner, column);
    case 'fixed_string':
      return (out, value, message) => {
        const size = byteLengthOf(value, column, message);
        if (size > type.length) checkFixedStringValue(column.name, type.length, value as string | Uint8Array);
        writeText(out, value as string | Uint8Array, size);
        out.zeros(type.length - size);
      };
    case 'datetime':
      return (out, value, message) =>
        out.smallInteger(timeUnits(value, 1000, 2 ** 32 - 1, 'Unix seconds', column, message), 4, false);
    case 'scalar':
      return scalarWriter(type.name, column);
    case 'unsupported':
      throw new SinkError(
        'SINK_INTERNAL',
        `Column type ${type.text} cannot be written; the schema check should have refused it`,
      );
  }
}

function scalarWriter(name: ClickHouseScalar, column: Column): ValueWriter {
  const integer = INTEGERS[name];
  if (integer) return integerWriter(integer.bytes, integer.signed, column);
  switch (name) {
    case 'Float32':
    case 'Float64':
      return (out, value, message) => {
        if (typeof value !== 'number') refuse(column, message, value, 'a number');
        if (name === 'Float32') out.float32(value);
        else out.float64(value);
      };
    case 'String':
      return (out, value, message) => {
        const size = byteLengthOf(value, column, message);
        out.varUInt(size);
        writeText(out, value as string | Uint8Array, size);
      };
    case 'Bool':
      return (out, value, message) => {
        if (typeof value !== 'boolean') refuse(column, message, value, 'a boolean');
        out.uint8(value ? 1 : 0);
      };
    case 'Date':
      return (out, value, message) =>
        out.smallInteger(timeUnits(value, DAY_MS, 65_535, 'days since 1970-01-01', column, message), 2, false);
    default:
      throw new SinkError('SINK_INTERNAL', `No RowBinary writer for ${name}`);
  }
}

/** Numbers stay numbers up to 4 bytes; 8-byte columns go through bigint, the only exact form. */
function integerWriter(bytes: 1 | 2 | 4 | 8, signed: boolean, column: Column): ValueWriter {
  const bits = BigInt(bytes * 8);
  const min = signed ? -(1n << (bits - 1n)) : 0n;
  const max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  const expected = `an integer in ${min}..${max}`;
  if (bytes !== 8) {
    const [low, high] = [Number(min), Number(max)];
    return (out, value, message) => {
      if (typeof value === 'bigint' && (value < min || value > max)) refuse(column, message, value, expected);
      const number = typeof value === 'bigint' ? Number(value) : value;
      if (typeof number !== 'number' || !Number.isInteger(number))
        refuse(column, message, value, `${expected} (a number or a bigint)`);
      if (number < low || number > high) refuse(column, message, value, expected);
      out.smallInteger(number, bytes, signed);
    };
  }
  return (out, value, message) => {
    const big =
      typeof value === 'bigint'
        ? value
        : typeof value === 'number' && Number.isSafeInteger(value)
          ? BigInt(value)
          : undefined;
    if (big === undefined) refuse(column, message, value, 'an integer (a safe-integer number or a bigint)');
    if (big < min || big > max) refuse(column, message, value, expected);
    out.bigInteger(big, signed);
  };
}

/** Date and DateTime: a number is already in the column's unit (days, seconds); a Date is converted. */
function timeUnits(
  value: RowValue,
  unitMs: number,
  max: number,
  unit: string,
  column: Column,
  message: MessageId,
): number {
  const units = value instanceof Date ? Math.floor(value.getTime() / unitMs) : value;
  if (typeof units !== 'number' || !Number.isInteger(units) || units < 0 || units > max)
    refuse(column, message, value, `a Date or an integer number of ${unit} in 0..${max}`);
  return units;
}

function byteLengthOf(value: RowValue, column: Column, message: MessageId): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (value instanceof Uint8Array) return value.byteLength;
  refuse(column, message, value, 'a string or a byte string');
}

function writeText(out: ByteWriter, value: string | Uint8Array, size: number): void {
  if (typeof value === 'string') out.utf8(value, size);
  else out.bytes(value);
}

function refuse(column: Column, message: MessageId, value: RowValue, expected: string): never {
  const shown =
    value === undefined
      ? 'no value'
      : value === null
        ? 'null'
        : typeof value === 'bigint'
          ? `${value}n`
          : value instanceof Uint8Array
            ? `${value.byteLength} bytes`
            : JSON.stringify(value);
  throw new SinkError(
    'SINK_VALUE_INVALID',
    `Message ${message}: column '${column.name}' (${column.type}) got ${shown}, expected ${expected}; the row cannot be written until the value or the column type is fixed`,
  );
}
