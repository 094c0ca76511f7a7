import { describe, expect, it } from 'vitest';
import { parseClasses, parseSelection } from './cli-options.ts';

describe('parseSelection', () => {
  const base = { backend: 'embedded', seed: '7' };

  it('keeps, without --sink, only the classes a selected scenario covers', () => {
    expect(parseSelection({ ...base, scenario: 'at-most-once-queue' }).classes).toEqual(['AtMostOnceClickHouseSink']);
    expect(parseSelection({ ...base, scenario: 'topology-guard' }).classes).toEqual([
      'ClickHouseBatchingSink',
      'ShardedClickHouseBatchingSink',
    ]);
    expect(parseSelection(base).classes).toHaveLength(4);
  });

  it('refuses a class named with --sink that no selected scenario covers', () => {
    expect(() => parseSelection({ ...base, sink: 'AtLeastOnceClickHouseSink', scenario: 'topology-guard' })).toThrow(
      /no selected scenario covers AtLeastOnceClickHouseSink: topology-guard covers ClickHouseBatchingSink, ShardedClickHouseBatchingSink/,
    );
  });

  it('reads the seed as an integer and refuses anything else', () => {
    expect(parseSelection(base).seed).toBe(7);
    expect(() => parseSelection({ ...base, seed: '7e3' })).toThrow(/--seed takes an integer/);
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
