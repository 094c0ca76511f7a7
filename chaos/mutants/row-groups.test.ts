import { describe, expect, it } from 'vitest';
import { DEFAULT_SHAPE } from '../scenarios/index.ts';
import { dealt, rowGroups } from './row-groups.ts';

const OTHER = { shards: 2, replicas: 2, shardNames: ['a', 'bbbb'] };
const planned = (label: string) => ({ label, run: () => Promise.reject(new Error('not run here')) });
const plan = { sink: (s: { name: string }) => planned(s.name), staged: (s: { name: string }) => planned(s.name) };
const labels = (groups: ReturnType<typeof rowGroups>) =>
  groups.map((group) => ({ shape: group.shape, rows: group.rows.map((row) => row.label) }));

describe('dealt', () => {
  it('deals round-robin into at most the parts asked, never an empty hand', () => {
    expect(dealt([1, 2, 3, 4, 5], 2)).toEqual([
      [1, 3, 5],
      [2, 4],
    ]);
    expect(dealt([1], 4)).toEqual([[1]]);
    expect(dealt([], 2)).toEqual([]);
  });
});

describe('rowGroups', () => {
  it("deals each shape's rows over the lanes, the staged loader's on their own 1x2 clusters", () => {
    const sinks = [{ name: 'a' }, { name: 'b', shape: OTHER }, { name: 'c' }, { name: 'd' }];
    expect(labels(rowGroups(sinks, [{ name: 's' }], 2, plan))).toEqual([
      { shape: DEFAULT_SHAPE, rows: ['a', 'd'] },
      { shape: DEFAULT_SHAPE, rows: ['c'] },
      { shape: OTHER, rows: ['b'] },
      { shape: { shards: 1, replicas: 2 }, rows: ['s'] },
    ]);
  });

  it('one lane: one cluster per shape, every row of it in order', () => {
    const sinks = [{ name: 'a' }, { name: 'b' }, { name: 'c', shape: OTHER }];
    expect(labels(rowGroups(sinks, [], 1, plan))).toEqual([
      { shape: DEFAULT_SHAPE, rows: ['a', 'b'] },
      { shape: OTHER, rows: ['c'] },
    ]);
  });
});
