import { describe, expect, it } from 'vitest';
import { checkFixedStringValue } from './fixed-string.ts';

describe('checkFixedStringValue', () => {
  it('accepts values up to N bytes', () => {
    expect(() => checkFixedStringValue('code', 3, 'abc')).not.toThrow();
    expect(() => checkFixedStringValue('code', 3, 'a')).not.toThrow();
    expect(() => checkFixedStringValue('code', 3, new Uint8Array(3))).not.toThrow();
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(() => checkFixedStringValue('code', 3, 'äb')).not.toThrow();
    expect(() => checkFixedStringValue('code', 3, 'äö')).toThrow(
      /4 bytes, longer than its ClickHouse type FixedString\(3\)/,
    );
  });

  it('refuses longer values as a permanent value error naming the column', () => {
    expect(() => checkFixedStringValue('code', 2, new Uint8Array(3))).toThrow(
      expect.objectContaining({ code: 'SINK_VALUE_INVALID', message: expect.stringContaining("column 'code'") }),
    );
  });
});
