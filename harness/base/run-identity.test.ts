import { describe, expect, it } from 'vitest';
import { newRunId, pairSeed, runIdOf, seedOf } from './run-identity.ts';

describe('the run identity brands', () => {
  it('takes an integer seed and refuses anything else, naming where it came from', () => {
    expect(seedOf(-7)).toBe(-7);
    expect(() => seedOf(1.5, '--seed')).toThrow('--seed must be an integer, got 1.5');
    expect(() => seedOf(Number.NaN)).toThrow(/must be an integer/);
  });

  it('takes a run id as newRunId makes them and refuses another form', () => {
    const id = newRunId(new Date('2026-12-01T12:34:56Z'));
    expect(runIdOf(id)).toBe(id);
    expect(() => runIdOf('../etc', 'the run directory')).toThrow(
      "the run directory should look like 20261201-120000-ab12, got '../etc'",
    );
  });
});

describe('pairSeed', () => {
  it('gives each pair of a job its own 32-bit seed, the same every time it is asked', () => {
    const seed = seedOf(361218543);
    const pairs = [
      'ClickHouseBatchingSink/unknown-outcome',
      'ClickHouseBatchingSink/sink-crash',
      'AtMostOnceClickHouseSink/unknown-outcome',
    ];
    const seeds = pairs.map((pair) => pairSeed(seed, pair));
    expect(new Set(seeds).size).toBe(pairs.length);
    expect(pairSeed(seed, pairs[0] ?? '')).toBe(seeds[0]);
    expect(pairSeed(seedOf(361218544), pairs[0] ?? '')).not.toBe(seeds[0]);
    for (const value of seeds) expect(value | 0).toBe(value);
  });
});
