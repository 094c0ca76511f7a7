import { describe, expect, it } from 'vitest';
import { toHex64, xxhash64 } from './xxhash64.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

// Expected values computed by ClickHouse 26.7 (`SELECT hex(xxHash64(...))`); the lengths cover the
// 1-, 4- and 8-byte tails and the 32-byte stripe loop.
const knownAnswers: Array<[string, Uint8Array, string]> = [
  ['empty', utf8(''), 'ef46db3751d8e999'],
  ['a', utf8('a'), 'd24ec4f1a98c6e5b'],
  ['abc', utf8('abc'), '44bc2cf5ad770999'],
  ['12345678', utf8('12345678'), 'd2d02f08cf7cfd4a'],
  ['message digest', utf8('message digest'), '066ed728fceeb3be'],
  ['alphabet (26 bytes)', utf8('abcdefghijklmnopqrstuvwxyz'), 'cfe1f278fa89835c'],
  ['32 bytes', utf8('1234567890abcdef1234567890abcdef'), 'c1bf3856a435f3ec'],
  ['quick brown fox (43 bytes)', utf8('The quick brown fox jumps over the lazy dog'), '0b242d361fda71bc'],
  ['100 bytes', utf8('0123456789'.repeat(10)), 'f80e7b96315afffa'],
  ['bytes 0..255', Uint8Array.from({ length: 256 }, (_, i) => i), '1facbe8406cd904b'],
  ['message id 1-4-17', utf8('1-4-17'), '2d227f7e82f74ed7'],
];

describe('xxhash64', () => {
  it.each(knownAnswers)('matches ClickHouse for %s', (_name, input, expected) => {
    expect(toHex64(xxhash64(input))).toBe(expected);
  });

  it('reads from a view with a non-zero byte offset', () => {
    const backing = utf8('xxThe quick brown fox jumps over the lazy dog');
    expect(toHex64(xxhash64(backing.subarray(2)))).toBe('0b242d361fda71bc');
  });

  it('pads the display form to 16 hex digits', () => {
    expect(toHex64(0x1fn)).toBe('000000000000001f');
  });
});
