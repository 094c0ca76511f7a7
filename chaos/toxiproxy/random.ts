/**
 * A small seedable PRNG (sfc32 seeded through splitmix32). Toxiproxy's `-seed` makes toxicity
 * draws replayable; the same seed and the same sequence of connections and API calls give the
 * same affected connections.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, bound); 0 when bound <= 0. */
  int(bound: number): number;
}

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** `seed` may be any safe integer (Toxiproxy's is an int64); both 32-bit halves are used. */
export function createRandom(seed: number, stream = 0): Random {
  const big = BigInt.asUintN(64, BigInt(Math.trunc(seed)));
  const low = Number(big & 0xffffffffn);
  const high = Number(big >> 32n);
  const mix = splitmix32(low ^ Math.imul(high ^ stream, 0x27d4eb2d));
  let a = mix();
  let b = mix();
  let c = mix();
  let d = mix();
  const next32 = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i += 1) next32();
  const next = (): number => next32() / 4294967296;
  return {
    next,
    int: (bound) => (bound <= 0 ? 0 : Math.floor(next() * bound)),
  };
}

/** A seed for runs that did not ask for one; printed so the run can be replayed. */
export function freshSeed(): number {
  return Math.floor(Math.random() * Number.MAX_SAFE_INTEGER);
}
