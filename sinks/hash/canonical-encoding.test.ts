import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanonicalEncoder } from './canonical-encoding.ts';

const encodeTexts = (fields: readonly string[]) => new CanonicalEncoder().texts(fields).finish();
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('CanonicalEncoder', () => {
  it('prefixes each field with its 4-byte big-endian length', () => {
    expect(hex(new CanonicalEncoder().text('ab').text('').finish())).toBe('00000002616200000000');
  });

  it('keeps field boundaries: ["ab","c"] and ["a","bc"] differ', () => {
    expect(hex(encodeTexts(['ab', 'c']))).not.toBe(hex(encodeTexts(['a', 'bc'])));
  });

  it('is injective over string lists', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.array(fc.string()), (left, right) => {
        const same = left.length === right.length && left.every((field, i) => field === right[i]);
        expect(hex(encodeTexts(left)) === hex(encodeTexts(right))).toBe(same);
      }),
    );
  });
});
