import type { MessageId, Row, RowValue, SinkMessage } from '../../../sinks/index.ts';
import { HarnessError } from '../../base/index.ts';

/**
 * JSON for outbox messages. Row values JSON cannot hold exactly (bigint, Date, bytes) are tagged,
 * so a replayed batch hands the sink the very values of the original one — a routing key that
 * changed type on the way through the store would move the row to another shard.
 */
type Encoded =
  | null
  | boolean
  | number
  | string
  | { readonly $bigint: string }
  | { readonly $date: number }
  | { readonly $bytes: string };

interface EncodedMessage {
  readonly id: string;
  readonly row: Record<string, Encoded>;
  readonly byteSize: number;
}

export function encodeMessages(messages: readonly SinkMessage[]): string {
  return JSON.stringify(
    messages.map((message): EncodedMessage => ({
      id: message.id,
      row: encodeRow(message.id, message.row),
      byteSize: message.byteSize,
    })),
  );
}

export function decodeMessages(text: string): SinkMessage[] {
  return (JSON.parse(text) as EncodedMessage[]).map((message) => ({
    id: message.id as MessageId,
    row: Object.fromEntries(Object.entries(message.row).map(([name, value]) => [name, decodeValue(value)])) as Row,
    byteSize: message.byteSize,
  }));
}

function encodeRow(id: string, row: Row): Record<string, Encoded> {
  const out: Record<string, Encoded> = {};
  for (const [name, value] of Object.entries(row)) {
    // `undefined` (an absent optional column) is dropped, which decodes back to absent.
    if (value !== undefined) out[name] = encodeValue(value, id, name);
  }
  return out;
}

function encodeValue(value: Exclude<RowValue, undefined>, id: string, column: string): Encoded {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new HarnessError(
        'FLOW_STATE_ENCODE',
        `Message ${id} column '${column}' holds ${value}, which the state store cannot persist`,
      );
    return value;
  }
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (value instanceof Date) return { $date: value.getTime() };
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
  throw new HarnessError(
    'FLOW_STATE_ENCODE',
    `Message ${id} column '${column}' holds a ${typeof value}, which is not a row value`,
  );
}

function decodeValue(value: Encoded): RowValue {
  if (value === null || typeof value !== 'object') return value;
  if ('$bigint' in value) return BigInt(value.$bigint);
  if ('$date' in value) return new Date(value.$date);
  return new Uint8Array(Buffer.from(value.$bytes, 'base64'));
}
