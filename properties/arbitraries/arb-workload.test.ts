import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TYPED_COLUMN_NAMES } from '../../harness/flow/index.ts';
import { KEY_COLUMN_SETS } from './arb-sink-spec.ts';
import { arbWorkload, KEY_TYPED_COLUMNS, LARGE_EPOCH, largeEpoch, type Workload } from './arb-workload.ts';

const draws = fc.sample(arbWorkload(), { numRuns: 300, seed: 5 });

describe('arbWorkload', () => {
  it('writes every typed column a keyed spec may name, in every draw', () => {
    const keyed = new Set(KEY_COLUMN_SETS.flat().filter((name) => name !== 'key'));
    expect(new Set(KEY_TYPED_COLUMNS)).toEqual(keyed);
    for (const workload of draws) expect(workload.typedColumns).toEqual(expect.arrayContaining([...keyed]));
  });

  it('leaves each other typed column out of some runs and writes it in most', () => {
    for (const name of TYPED_COLUMN_NAMES.filter((each) => !KEY_TYPED_COLUMNS.includes(each))) {
      const written = draws.filter((workload) => workload.typedColumns.includes(name)).length;
      expect(written, name).toBeGreaterThan(draws.length / 2);
      expect(written, name).toBeLessThan(draws.length);
    }
  });

  it("declares the table in the stream's order in some runs and in a drawn permutation in most", () => {
    const shuffled = draws.filter((workload) => workload.tableShuffle !== 0).length;
    expect(shuffled).toBeGreaterThan(draws.length / 2);
    expect(shuffled).toBeLessThan(draws.length);
  });

  it('shrinks a workload to the key columns alone, in the stream’s order', () => {
    const result = fc.check(
      fc.property(arbWorkload(), (_workload: Workload) => false),
      { seed: 9, numRuns: 1 },
    );
    const shrunk = result.counterexample?.[0];
    expect(shrunk?.typedColumns).toEqual(KEY_TYPED_COLUMNS);
    expect(shrunk?.tableShuffle).toBe(0);
  });

  it('scales the large epochs by the volume, and keeps the small ones and a scenario’s own epoch limits', () => {
    const sizes = (limits: Parameters<typeof arbWorkload>[0]) =>
      fc.sample(arbWorkload(limits), { numRuns: 300, seed: 5 }).map((workload) => workload.messagesPerEpoch);
    const atThree = sizes({ volume: 3 });
    const large = atThree.filter((size) => size > LARGE_EPOCH.max);
    expect(large.length).toBeGreaterThan(atThree.length / 2);
    expect(Math.min(...large)).toBeGreaterThanOrEqual(3 * LARGE_EPOCH.min);
    expect(Math.max(...atThree)).toBeLessThanOrEqual(3 * LARGE_EPOCH.max);
    expect(atThree.some((size) => size <= 24)).toBe(true);
    expect(Math.max(...sizes({ volume: 3, maxMessagesPerEpoch: 24 }))).toBeLessThanOrEqual(24);
    expect(() => largeEpoch(0)).toThrow(RangeError);
  });

  it('declares the table in a drawn order in every run that asks for a shuffled table', () => {
    const shuffled = fc.sample(arbWorkload({ shuffledTable: true }), { numRuns: 100, seed: 5 });
    expect(shuffled.every((workload) => workload.tableShuffle !== 0)).toBe(true);
  });
});
