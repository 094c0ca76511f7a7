/**
 * xxHash64 (Yann Collet's XXH64, seed 0 unless given), in BigInt. Chosen for routing and
 * fingerprints because it is well known, has full 64-bit avalanche through its final mixer, and
 * ClickHouse exposes the same function (`xxHash64(s)`), so a value can be cross-checked in SQL.
 * The known-answer tests pin it against ClickHouse's output.
 */
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

const u64 = (value: bigint): bigint => BigInt.asUintN(64, value);
const rotl = (value: bigint, bits: bigint): bigint => u64((value << bits) | (value >> (64n - bits)));

function round(acc: bigint, lane: bigint): bigint {
  return u64(rotl(u64(acc + lane * P2), 31n) * P1);
}

function mergeRound(acc: bigint, value: bigint): bigint {
  return u64((acc ^ round(0n, value)) * P1 + P4);
}

export function xxhash64(input: Uint8Array, seed = 0n): bigint {
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const length = input.byteLength;
  let offset = 0;
  let hash: bigint;

  if (length >= 32) {
    let v1 = u64(seed + P1 + P2);
    let v2 = u64(seed + P2);
    let v3 = u64(seed);
    let v4 = u64(seed - P1);
    for (; offset + 32 <= length; offset += 32) {
      v1 = round(v1, view.getBigUint64(offset, true));
      v2 = round(v2, view.getBigUint64(offset + 8, true));
      v3 = round(v3, view.getBigUint64(offset + 16, true));
      v4 = round(v4, view.getBigUint64(offset + 24, true));
    }
    hash = u64(rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n));
    hash = mergeRound(mergeRound(mergeRound(mergeRound(hash, v1), v2), v3), v4);
  } else {
    hash = u64(seed + P5);
  }
  hash = u64(hash + BigInt(length));

  for (; offset + 8 <= length; offset += 8) {
    hash = u64(rotl(hash ^ round(0n, view.getBigUint64(offset, true)), 27n) * P1 + P4);
  }
  if (offset + 4 <= length) {
    hash = u64(rotl(hash ^ u64(BigInt(view.getUint32(offset, true)) * P1), 23n) * P2 + P3);
    offset += 4;
  }
  for (; offset < length; offset += 1) {
    hash = u64(rotl(hash ^ u64(BigInt(input[offset] ?? 0) * P5), 11n) * P1);
  }

  hash = u64((hash ^ (hash >> 33n)) * P2);
  hash = u64((hash ^ (hash >> 29n)) * P3);
  return hash ^ (hash >> 32n);
}

/** The 16-hex-digit display form used for fingerprints, e.g. `3f2a17c9b4e05d81`. */
export function toHex64(value: bigint): string {
  return value.toString(16).padStart(16, '0');
}
