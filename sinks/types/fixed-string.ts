import { SinkError } from '../errors.ts';

const utf8 = new TextEncoder();

/**
 * The write-time check of a FixedString(N) value: at most N bytes (UTF-8 for text), as the
 * native client enforces; shorter values are padded with zero bytes by ClickHouse. A longer value
 * is a permanent validation error (`SINK_VALUE_INVALID`).
 */
export function checkFixedStringValue(column: string, length: number, value: string | Uint8Array): void {
  const size = typeof value === 'string' ? utf8.encode(value).byteLength : value.byteLength;
  if (size > length) {
    throw new SinkError(
      'SINK_VALUE_INVALID',
      `Value of column '${column}' is ${size} bytes, longer than its ClickHouse type FixedString(${length}) allows; the row cannot be written until the value or the column type is fixed`,
    );
  }
}
