/**
 * xxHash64 (Yann Collet's XXH64, seed 0 unless given). Chosen for routing and fingerprints
 * because it is well known, has full 64-bit avalanche through its final mixer, and ClickHouse
 * exposes the same function (`xxHash64(s)`), so a value can be cross-checked in SQL. The
 * known-answer tests pin it against ClickHouse's output.
 *
 * The sharded sink hashes every message once per shard, so this runs on 32-bit halves (BigInt
 * arithmetic cost ~35 µs per message): a 64-bit word is a (hi, lo) pair of uint32, and each
 * helper leaves its result in `rHi`/`rLo` instead of allocating. Only the result is a BigInt.
 */
const P1_HI = 0x9e3779b1;
const P1_LO = 0x85ebca87;
const P2_HI = 0xc2b2ae3d;
const P2_LO = 0x27d4eb4f;
const P3_HI = 0x165667b1;
const P3_LO = 0x9e3779f9;
const P4_HI = 0x85ebca77;
const P4_LO = 0xc2b2ae63;
const P5_HI = 0x27d4eb2f;
const P5_LO = 0x165667c5;

let rHi = 0;
let rLo = 0;

function add(aHi: number, aLo: number, bHi: number, bLo: number): void {
  const lo = aLo + bLo;
  rLo = lo >>> 0;
  rHi = (aHi + bHi + (lo > 0xffffffff ? 1 : 0)) >>> 0;
}

/** The low 64 bits of the product: the full 64-bit product of the low halves (in 16-bit pieces) plus the cross terms. */
function mul(aHi: number, aLo: number, bHi: number, bLo: number): void {
  const a0 = aLo & 0xffff;
  const a1 = aLo >>> 16;
  const b0 = bLo & 0xffff;
  const b1 = bLo >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const loHigh = a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
  rLo = ((mid << 16) | (p00 & 0xffff)) >>> 0;
  rHi = (loHigh + Math.imul(aHi, bLo) + Math.imul(aLo, bHi)) >>> 0;
}

/** Rotate left by 1..31 bits (every rotation XXH64 uses is in that range). */
function rotl(hi: number, lo: number, bits: number): void {
  rHi = ((hi << bits) | (lo >>> (32 - bits))) >>> 0;
  rLo = ((lo << bits) | (hi >>> (32 - bits))) >>> 0;
}

/** acc = rotl(acc + lane * P2, 31) * P1 */
function round(accHi: number, accLo: number, laneHi: number, laneLo: number): void {
  mul(laneHi, laneLo, P2_HI, P2_LO);
  add(accHi, accLo, rHi, rLo);
  rotl(rHi, rLo, 31);
  mul(rHi, rLo, P1_HI, P1_LO);
}

/** hash = (hash ^ round(0, value)) * P1 + P4 */
function mergeRound(hashHi: number, hashLo: number, valueHi: number, valueLo: number): void {
  round(0, 0, valueHi, valueLo);
  mul((hashHi ^ rHi) >>> 0, (hashLo ^ rLo) >>> 0, P1_HI, P1_LO);
  add(rHi, rLo, P4_HI, P4_LO);
}

export function xxhash64(input: Uint8Array, seed = 0n): bigint {
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const length = input.byteLength;
  const seed64 = seed === 0n ? 0n : BigInt.asUintN(64, seed);
  const seedHi = seed64 === 0n ? 0 : Number(seed64 >> 32n);
  const seedLo = seed64 === 0n ? 0 : Number(seed64 & 0xffffffffn);
  let offset = 0;
  let hHi: number;
  let hLo: number;

  if (length >= 32) {
    add(seedHi, seedLo, P1_HI, P1_LO);
    add(rHi, rLo, P2_HI, P2_LO);
    let v1Hi = rHi;
    let v1Lo = rLo;
    add(seedHi, seedLo, P2_HI, P2_LO);
    let v2Hi = rHi;
    let v2Lo = rLo;
    let v3Hi = seedHi;
    let v3Lo = seedLo;
    // seed - P1 = seed + (2^64 - P1)
    add(seedHi, seedLo, ~P1_HI >>> 0, ~P1_LO >>> 0);
    add(rHi, rLo, 0, 1);
    let v4Hi = rHi;
    let v4Lo = rLo;
    for (; offset + 32 <= length; offset += 32) {
      round(v1Hi, v1Lo, view.getUint32(offset + 4, true), view.getUint32(offset, true));
      v1Hi = rHi;
      v1Lo = rLo;
      round(v2Hi, v2Lo, view.getUint32(offset + 12, true), view.getUint32(offset + 8, true));
      v2Hi = rHi;
      v2Lo = rLo;
      round(v3Hi, v3Lo, view.getUint32(offset + 20, true), view.getUint32(offset + 16, true));
      v3Hi = rHi;
      v3Lo = rLo;
      round(v4Hi, v4Lo, view.getUint32(offset + 28, true), view.getUint32(offset + 24, true));
      v4Hi = rHi;
      v4Lo = rLo;
    }
    rotl(v1Hi, v1Lo, 1);
    hHi = rHi;
    hLo = rLo;
    rotl(v2Hi, v2Lo, 7);
    add(hHi, hLo, rHi, rLo);
    hHi = rHi;
    hLo = rLo;
    rotl(v3Hi, v3Lo, 12);
    add(hHi, hLo, rHi, rLo);
    hHi = rHi;
    hLo = rLo;
    rotl(v4Hi, v4Lo, 18);
    add(hHi, hLo, rHi, rLo);
    mergeRound(rHi, rLo, v1Hi, v1Lo);
    mergeRound(rHi, rLo, v2Hi, v2Lo);
    mergeRound(rHi, rLo, v3Hi, v3Lo);
    mergeRound(rHi, rLo, v4Hi, v4Lo);
  } else {
    add(seedHi, seedLo, P5_HI, P5_LO);
  }
  // Lengths above 2^32 bytes never reach a hash here (a Uint8Array of that size is not built).
  add(rHi, rLo, 0, length);
  hHi = rHi;
  hLo = rLo;

  for (; offset + 8 <= length; offset += 8) {
    round(0, 0, view.getUint32(offset + 4, true), view.getUint32(offset, true));
    rotl((hHi ^ rHi) >>> 0, (hLo ^ rLo) >>> 0, 27);
    mul(rHi, rLo, P1_HI, P1_LO);
    add(rHi, rLo, P4_HI, P4_LO);
    hHi = rHi;
    hLo = rLo;
  }
  if (offset + 4 <= length) {
    mul(0, view.getUint32(offset, true), P1_HI, P1_LO);
    rotl((hHi ^ rHi) >>> 0, (hLo ^ rLo) >>> 0, 23);
    mul(rHi, rLo, P2_HI, P2_LO);
    add(rHi, rLo, P3_HI, P3_LO);
    hHi = rHi;
    hLo = rLo;
    offset += 4;
  }
  for (; offset < length; offset += 1) {
    mul(0, input[offset] ?? 0, P5_HI, P5_LO);
    rotl((hHi ^ rHi) >>> 0, (hLo ^ rLo) >>> 0, 11);
    mul(rHi, rLo, P1_HI, P1_LO);
    hHi = rHi;
    hLo = rLo;
  }

  // Avalanche: h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32.
  mul(hHi, (hLo ^ (hHi >>> 1)) >>> 0, P2_HI, P2_LO);
  mul((rHi ^ (rHi >>> 29)) >>> 0, (rLo ^ ((rLo >>> 29) | (rHi << 3))) >>> 0, P3_HI, P3_LO);
  return (BigInt(rHi) << 32n) | BigInt((rLo ^ rHi) >>> 0);
}

/** The 16-hex-digit display form used for fingerprints, e.g. `3f2a17c9b4e05d81`. */
export function toHex64(value: bigint): string {
  return value.toString(16).padStart(16, '0');
}
