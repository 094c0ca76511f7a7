import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHex64, xxhash64 } from './xxhash64.ts';

/** XXH64 written plainly in BigInt (slow, obviously 64-bit): the oracle for the 32-bit-halves version. */
function referenceXxhash64(input: Uint8Array, seed: bigint): bigint {
  const P1 = 0x9e3779b185ebca87n;
  const P2 = 0xc2b2ae3d27d4eb4fn;
  const P3 = 0x165667b19e3779f9n;
  const P4 = 0x85ebca77c2b2ae63n;
  const P5 = 0x27d4eb2f165667c5n;
  const u64 = (value: bigint) => BigInt.asUintN(64, value);
  const rotl = (value: bigint, bits: bigint) => u64((value << bits) | (value >> (64n - bits)));
  const round = (acc: bigint, lane: bigint) => u64(rotl(u64(acc + lane * P2), 31n) * P1);
  const mergeRound = (acc: bigint, value: bigint) => u64((acc ^ round(0n, value)) * P1 + P4);
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const length = input.byteLength;
  let offset = 0;
  let hash: bigint;
  if (length >= 32) {
    const v = [u64(seed + P1 + P2), u64(seed + P2), u64(seed), u64(seed - P1)];
    for (; offset + 32 <= length; offset += 32)
      v.forEach((acc, i) => (v[i] = round(acc, view.getBigUint64(offset + 8 * i, true))));
    const [v1 = 0n, v2 = 0n, v3 = 0n, v4 = 0n] = v;
    hash = mergeRound(
      mergeRound(mergeRound(mergeRound(u64(rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)), v1), v2), v3),
      v4,
    );
  } else {
    hash = u64(seed + P5);
  }
  hash = u64(hash + BigInt(length));
  for (; offset + 8 <= length; offset += 8)
    hash = u64(rotl(hash ^ round(0n, view.getBigUint64(offset, true)), 27n) * P1 + P4);
  if (offset + 4 <= length) {
    hash = u64(rotl(hash ^ u64(BigInt(view.getUint32(offset, true)) * P1), 23n) * P2 + P3);
    offset += 4;
  }
  for (; offset < length; offset += 1) hash = u64(rotl(hash ^ u64(BigInt(input[offset] ?? 0) * P5), 11n) * P1);
  hash = u64((hash ^ (hash >> 33n)) * P2);
  hash = u64((hash ^ (hash >> 29n)) * P3);
  return hash ^ (hash >> 32n);
}

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

  it('agrees with a plain BigInt XXH64 on any bytes and seed (seed 20261130)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (input, seed) => {
        expect(xxhash64(input, seed)).toBe(referenceXxhash64(input, seed));
      }),
      { seed: 20261130, numRuns: 2000 },
    );
  });

  it('pads the display form to 16 hex digits', () => {
    expect(toHex64(0x1fn)).toBe('000000000000001f');
  });
});
