import { describe, expect, it } from 'vitest';
import { messageId } from '../domain/message-id.ts';
import { routingKeyFor, type Row } from './routing-key.ts';

const id = messageId('1-4-17');
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const keyOf = (row: Row, columns: string[]) => hex(routingKeyFor(id, row, columns));

describe('routingKeyFor', () => {
  it('uses the message id text when there are no sharding key columns', () => {
    expect(Buffer.from(routingKeyFor(id, { user_id: 5 }, [])).toString()).toBe('1-4-17');
  });

  it('encodes the key tuple as a count then length-prefixed tagged values', () => {
    // count 2 | len 2 "i5" | len 3 "sab"
    expect(keyOf({ user_id: 5, name: 'ab' }, ['user_id', 'name'])).toBe(
      '00000002' + '00000002' + '6935' + '00000003' + '736162',
    );
  });

  it('ignores columns outside the key and the message id', () => {
    expect(routingKeyFor(messageId('9-9-9'), { user_id: 5, other: 1 }, ['user_id'])).toEqual(
      routingKeyFor(id, { user_id: 5 }, ['user_id']),
    );
  });

  it('keeps the column order significant', () => {
    const row = { a: 1, b: 2 };
    expect(keyOf(row, ['a', 'b'])).not.toBe(keyOf(row, ['b', 'a']));
  });

  it('routes an integer alike whether it arrives as a number or a bigint', () => {
    expect(keyOf({ k: 5 }, ['k'])).toBe(keyOf({ k: 5n }, ['k']));
    expect(keyOf({ k: -0 }, ['k'])).toBe(keyOf({ k: 0 }, ['k']));
  });

  it('routes a string alike whether it arrives as text or UTF-8 bytes', () => {
    expect(keyOf({ k: 'héllo' }, ['k'])).toBe(keyOf({ k: new TextEncoder().encode('héllo') }, ['k']));
  });

  it('keeps values of different kinds apart', () => {
    const keys = [null, false, true, 1, 1.5, '1', 'null', Number.NaN, new Date(1)].map((k) => keyOf({ k }, ['k']));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('treats an absent column as null', () => {
    expect(keyOf({}, ['k'])).toBe(keyOf({ k: null }, ['k']));
  });

  it('refuses an invalid Date', () => {
    expect(() => routingKeyFor(id, { k: new Date(Number.NaN) }, ['k'])).toThrow(
      /Sharding key column 'k' of message 1-4-17/,
    );
  });
});
