import { describe, expect, it } from 'vitest';
import { matrixPairs, parseSlice, slicePairs } from './matrix-slice.ts';
import { findScenarios } from './scenarios/index.ts';

describe('matrix slices', () => {
  const pairs = Array.from({ length: 27 }, (_, i) => `pair-${i}`);

  it.each([1, 2, 3, 4, 7, 27, 30])('%i slices are disjoint and their union is the matrix, in order', (count) => {
    const slices = Array.from({ length: count }, (_, i) => slicePairs(pairs, { index: i + 1, count }));
    expect(slices.flat().sort()).toEqual([...pairs].sort());
    expect(new Set(slices.flat()).size).toBe(pairs.length);
    for (const slice of slices) expect(slice).toEqual(pairs.filter((pair) => slice.includes(pair)));
  });

  it('takes the whole matrix without a slice', () => {
    expect(slicePairs(pairs, undefined)).toEqual(pairs);
  });

  it('parses I/N and refuses anything else', () => {
    expect(parseSlice('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['0/4', '5/4', '1/0', '2', 'a/b', '1/2/3'])
      expect(() => parseSlice(bad)).toThrow(/--shard takes I\/N/);
  });

  it('takes each class, then each selected scenario covering it, in the order given', () => {
    const pairs = matrixPairs(
      ['AtMostOnceClickHouseSink', 'ClickHouseBatchingSink'],
      findScenarios(['at-most-once-queue', 'topology-guard', 'unknown-outcome']),
    );
    expect(pairs.map(({ sinkClass, scenario }) => `${sinkClass}/${scenario.name}`)).toEqual([
      'AtMostOnceClickHouseSink/at-most-once-queue',
      'AtMostOnceClickHouseSink/unknown-outcome',
      'ClickHouseBatchingSink/topology-guard',
      'ClickHouseBatchingSink/unknown-outcome',
    ]);
  });
});
