import { describe, expect, it } from 'vitest';
import type { Observations, ReplicaTruth } from './observations.ts';
import { viewChecker, viewExcess } from './view-checker.ts';

const truth = (shard: string, replica: string, counts: Record<string, number>): ReplicaTruth => ({
  shard,
  replica,
  counts: new Map(Object.entries(counts)),
});
const table = [truth('s1', 's1r1', { a: 1, b: 1 }), truth('s1', 's1r2', { a: 1, b: 1 })];
const observations = (view: readonly ReplicaTruth[], guarantee: 'exactly-once' | 'at-least-once') =>
  ({ replicas: table, view: { replicas: view, guarantee } }) as unknown as Observations;

describe('viewChecker', () => {
  it('passes a view that mirrors its table, and has nothing to say without a view', () => {
    const mirror = [truth('s1', 's1r1', { a: 1, b: 1 }), truth('s1', 's1r2', { a: 1, b: 1 })];
    expect(viewChecker(observations(mirror, 'exactly-once'))).toMatchObject({
      verdict: 'pass',
      counts: { lost: 0, duplicated: 0, unexpected: 0 },
    });
    expect(viewChecker({ replicas: table } as unknown as Observations)).toEqual({
      checker: 'view',
      verdict: 'pass',
      anomalies: [],
    });
  });

  it('flags a replay the view took twice where exactly-once is owed, and only counts it where it is not', () => {
    const twice = [truth('s1', 's1r1', { a: 2, b: 1 }), truth('s1', 's1r2', { a: 2, b: 1 })];
    expect(viewChecker(observations(twice, 'exactly-once')).anomalies).toEqual([
      { category: 'view-duplicated', count: 1, examples: ['a'] },
    ]);
    const degraded = viewChecker(observations(twice, 'at-least-once'));
    expect([degraded.verdict, degraded.counts?.duplicated]).toEqual(['pass', 1]);
    expect(viewExcess(table, twice)).toEqual(['a']);
  });

  it('flags what the view lost, what the table never held, and replicas of the view that differ', () => {
    const broken = [truth('s1', 's1r1', { a: 1, z: 1 }), truth('s1', 's1r2', { a: 1, b: 1, z: 1 })];
    expect(viewChecker(observations(broken, 'at-least-once')).anomalies).toEqual([
      { category: 'view-lost', count: 1, examples: ['b'] },
      { category: 'view-unexpected', count: 1, examples: ['z'] },
      { category: 'view-diverged', count: 1, examples: ['s1r2: b'] },
    ]);
  });
});
