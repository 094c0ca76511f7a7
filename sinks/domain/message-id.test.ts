import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasErrorCode } from '../errors.ts';
import {
  compareMessageIds,
  formatMessageId,
  isMessageId,
  maxMessageId,
  messageId,
  parseMessageId,
  type MessageIdParts,
} from './message-id.ts';

const arbParts: fc.Arbitrary<MessageIdParts> = fc.record({
  generation: fc.nat(),
  partition: fc.nat(),
  seq: fc.maxSafeNat(),
});

describe('MessageId', () => {
  it('parses and formats <generation>-<partition>-<seq>', () => {
    expect(parseMessageId('1-4-17')).toEqual({ generation: 1, partition: 4, seq: 17 });
    expect(formatMessageId({ generation: 1, partition: 4, seq: 17 })).toBe('1-4-17');
  });

  it.each([
    '',
    '1-4',
    '1-4-17-2',
    '01-4-17',
    '1-4-+1',
    '-1-4-17',
    '1-4-1.5',
    '1 -4-17',
    'a-b-c',
    '1-4-99999999999999999999',
  ])('refuses %j', (text) => {
    expect(isMessageId(text)).toBe(false);
    expect(() => parseMessageId(text)).toThrow(expect.objectContaining({ code: 'SINK_MESSAGE_ID_INVALID' }));
  });

  it('refuses negative or fractional components when formatting', () => {
    try {
      formatMessageId({ generation: 1, partition: -1, seq: 0 });
      expect.unreachable();
    } catch (error) {
      expect(hasErrorCode(error, 'SINK_MESSAGE_ID_INVALID')).toBe(true);
    }
  });

  it('round-trips', () => {
    fc.assert(
      fc.property(arbParts, (parts) => {
        expect(parseMessageId(formatMessageId(parts))).toEqual(parts);
      }),
    );
  });

  it('orders numerically per component, not as strings', () => {
    expect(compareMessageIds(messageId('1-4-9'), messageId('1-4-17'))).toBeLessThan(0);
    expect(compareMessageIds(messageId('2-0-0'), messageId('10-0-0'))).toBeLessThan(0);
    expect(compareMessageIds(messageId('1-10-0'), messageId('1-9-99'))).toBeGreaterThan(0);
    expect(compareMessageIds(messageId('1-4-17'), messageId('1-4-17'))).toBe(0);
  });

  it('orders like the lexicographic order of the component tuples', () => {
    fc.assert(
      fc.property(arbParts, arbParts, (a, b) => {
        const expected = Math.sign(a.generation - b.generation || a.partition - b.partition || a.seq - b.seq);
        expect(Math.sign(compareMessageIds(formatMessageId(a), formatMessageId(b)))).toBe(expected);
      }),
    );
  });

  it('finds the maximum', () => {
    expect(maxMessageId(['1-4-9', '1-4-17', '1-3-100'].map(messageId))).toBe('1-4-17');
    expect(maxMessageId([])).toBeUndefined();
  });
});
