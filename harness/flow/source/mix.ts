/**
 * A stateless 32-bit hash of a few integers (murmur3's finalizer over each word). The sources use
 * it instead of a stateful PRNG so that message `seq` can be generated without generating the
 * ones before it: `read(fromSeq, count)` is then pure in all of its arguments.
 */
export function mix32(...words: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const word of words) {
    // Safe integers above 2^32 (seeds, large seqs) contribute both halves.
    const low = word >>> 0;
    const high = Math.floor(word / 0x1_0000_0000) >>> 0;
    h = fmix(h ^ low);
    h = fmix(h ^ high ^ 0x85ebca6b);
  }
  return h;
}

function fmix(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** A 32-bit hash of a string (FNV-1a), to salt draws by column name. */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
