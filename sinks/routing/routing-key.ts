import { SinkError } from '../errors.ts';
import type { Brand } from '../domain/brand.ts';
import type { MessageId } from '../domain/message-id.ts';
import { CanonicalEncoder } from '../hash/canonical-encoding.ts';

/** The bytes rendezvous hashing scores: a message id, or an encoded tuple of key-column values. */
export type RoutingKey = Brand<Uint8Array, 'RoutingKey'>;

/** A column value as the stream hands it to the sink. */
export type RowValue = null | undefined | boolean | number | bigint | string | Uint8Array | Date;
export type Row = Readonly<Record<string, RowValue>>;

const utf8 = new TextEncoder();

/**
 * The routing key of one message. Empty `shardingKeyColumns`: the UTF-8 bytes of the message id
 * (stable on replay, evenly spread, no co-location). Otherwise the ordered tuple of those
 * columns' values in a canonical encoding: a count, then per value one length-prefixed field of
 * a type tag and the value's canonical text:
 * - `n` null or absent; `b0`/`b1` boolean;
 * - `i<decimal>` integer, whether a number or a bigint (so an Int64 read as 5 or 5n routes alike);
 * - `f<shortest round-trip text>` finite non-integral number; `x<NaN|Infinity|-Infinity>`;
 * - `s<bytes>` string (UTF-8) or byte string: both are the stream's `string` type;
 * - `t<epoch ms>` Date.
 */
export function routingKeyFor(id: MessageId, row: Row, shardingKeyColumns: readonly string[]): RoutingKey {
  if (shardingKeyColumns.length === 0) return utf8.encode(id) as RoutingKey;
  const encoder = new CanonicalEncoder().count(shardingKeyColumns.length);
  for (const column of shardingKeyColumns) encoder.bytes(encodeValue(row[column], column, id));
  return encoder.finish() as RoutingKey;
}

function encodeValue(value: RowValue, column: string, id: MessageId): Uint8Array {
  if (value === null || value === undefined) return tagged('n', '');
  if (typeof value === 'boolean') return tagged('b', value ? '1' : '0');
  if (typeof value === 'bigint') return tagged('i', value.toString());
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return tagged('x', String(value));
    // `Object.is(-0, 0)` is false but both print "0": one value, one key.
    return Number.isInteger(value) ? tagged('i', BigInt(value).toString()) : tagged('f', String(value));
  }
  if (typeof value === 'string') return tagged('s', value);
  if (value instanceof Uint8Array) return concat(utf8.encode('s'), value);
  if (value instanceof Date) {
    const time = value.getTime();
    if (Number.isNaN(time)) {
      throw new SinkError(
        'SINK_VALUE_INVALID',
        `Sharding key column '${column}' of message ${id} holds an invalid Date; the row cannot be routed`,
      );
    }
    return tagged('t', String(time));
  }
  throw new SinkError(
    'SINK_VALUE_INVALID',
    `Sharding key column '${column}' of message ${id} holds an unsupported value of type ${typeof value}`,
  );
}

function tagged(tag: string, text: string): Uint8Array {
  return utf8.encode(tag + text);
}

function concat(head: Uint8Array, tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.byteLength + tail.byteLength);
  out.set(head);
  out.set(tail, head.byteLength);
  return out;
}
