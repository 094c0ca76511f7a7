import { describe, expect, it } from 'vitest';
import { parseClasses, parseSelection, parseShape, shapeArgument } from './cli-options.ts';

describe('parseSelection', () => {
  const base = { backend: 'embedded', seed: '7' };

  it('keeps, without --sink, only the classes a selected scenario covers', () => {
    expect(parseSelection({ ...base, scenario: 'at-most-once-queue' }, 'ci').classes).toEqual([
      'AtMostOnceClickHouseSink',
    ]);
    expect(parseSelection({ ...base, scenario: 'topology-guard' }, 'ci').classes).toEqual([
      'ClickHouseBatchingSink',
      'ShardedClickHouseBatchingSink',
    ]);
    expect(parseSelection(base, 'ci').classes).toHaveLength(4);
  });

  it('refuses a class named with --sink that no selected scenario covers', () => {
    expect(() =>
      parseSelection({ ...base, sink: 'AtLeastOnceClickHouseSink', scenario: 'topology-guard' }, 'ci'),
    ).toThrow(
      /no selected scenario covers AtLeastOnceClickHouseSink: topology-guard covers ClickHouseBatchingSink, ShardedClickHouseBatchingSink/,
    );
  });

  it('runs the full-only scenarios in full, and any scenario it is given by name', () => {
    const names = (profile: 'ci' | 'full', scenario?: string) =>
      parseSelection({ ...base, ...(scenario === undefined ? {} : { scenario }) }, profile).scenarios.map(
        (s) => s.name,
      );
    expect(names('ci')).not.toContain('materialized-view');
    expect(names('full')).toContain('materialized-view');
    expect(names('ci', 'materialized-view')).toEqual(['materialized-view']);
    expect(names('ci')).toEqual(expect.arrayContaining(['quorum-sequential', 'quorum-parallel', 'dedup-window']));
  });

  it('reads the seed as an integer and refuses anything else', () => {
    expect(parseSelection(base, 'ci').seed).toBe(7);
    expect(() => parseSelection({ ...base, seed: '7e3' }, 'ci')).toThrow(/--seed takes an integer/);
  });
});

describe('parseClasses', () => {
  it('accepts the C++ spellings', () => {
    expect(parseClasses('NYT::NFlow::TClickHouseBatchingSink, TAtMostOnceClickHouseSink')).toEqual([
      'ClickHouseBatchingSink',
      'AtMostOnceClickHouseSink',
    ]);
  });
});

describe('--shape', () => {
  it('reads SHARDSxREPLICAS, with shard names optional, and gives it back for a replay line', () => {
    expect(parseShape('3x1', 'embedded')).toEqual({ shards: 3, replicas: 1 });
    const named = parseShape('2x2:a,north_eu-2', 'embedded');
    expect(named).toEqual({ shards: 2, replicas: 2, shardNames: ['a', 'north_eu-2'] });
    expect(shapeArgument(named)).toBe(' --shape 2x2:a,north_eu-2');
    expect(shapeArgument(undefined)).toBe('');
  });

  it.each([
    ['3', 'embedded', /--shape takes SHARDSxREPLICAS/],
    ['0x2', 'embedded', /--shards must be a whole number from 1 to 8/],
    ['2x2:a', 'embedded', /1 name\(s\) for 2 shard\(s\)/],
    ['2x1:a,b c', 'embedded', /shard name 'b c'/],
    ['2x2', 'external', /an attached one has the shape its file gives/],
  ])('refuses %s on %s before anything starts', (value, backend, message) => {
    expect(() => parseShape(value, backend)).toThrow(message);
  });
});
