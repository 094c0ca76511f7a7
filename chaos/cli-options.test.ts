import { describe, expect, it } from 'vitest';
import { parseClasses, parseSelection } from './cli-options.ts';

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
    // The four sinks, ClickHouse's Kafka engine and the staged loader, side by side.
    expect(parseSelection(base, 'ci').classes).toHaveLength(6);
    expect(parseSelection({ ...base, scenario: 'staged-keeper-cut' }, 'ci').classes).toEqual(['StagedPartitionLoader']);
    expect(parseSelection({ ...base, scenario: 'kafka-broker-link' }, 'ci').classes).toEqual(['ClickHouseKafkaEngine']);
  });

  it('takes the Kafka engine as a class, and refuses it with a sink scenario', () => {
    expect(parseSelection({ ...base, sink: 'ClickHouseKafkaEngine' }, 'ci').classes).toEqual(['ClickHouseKafkaEngine']);
    expect(() => parseSelection({ ...base, sink: 'ClickHouseKafkaEngine', scenario: 'unknown-outcome' }, 'ci')).toThrow(
      /no selected scenario covers ClickHouseKafkaEngine/,
    );
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

  it('runs the clusters it starts one lane per core unless --lanes says otherwise', () => {
    const lanesOn = (cores: number) => parseSelection(base, 'ci', () => 20_000, cores).lanes;
    expect([1, 2, 3, 4, 8, 64].map(lanesOn)).toEqual([1, 2, 3, 4, 4, 4]);
    expect(parseSelection({ ...base, lanes: '1' }, 'ci').lanes).toBe(1);
    expect(parseSelection({ ...base, lanes: '3' }, 'ci').lanes).toBe(3);
    for (const lanes of ['0', '5', '1.5', 'two'])
      expect(() => parseSelection({ ...base, lanes }, 'ci')).toThrow(/--lanes takes a whole number from 1 to 4/);
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

describe('parseSelection: a --shape this machine cannot hold', () => {
  const values = { backend: 'embedded', seed: '1', scenario: 'unknown-outcome' };

  it('is refused before anything starts, with what it needs and what there is', () => {
    expect(() => parseSelection({ ...values, shape: '8x4' }, 'ci', () => 4000)).toThrow(
      /^--shape 8x4: a 8x4 cluster \(32 ClickHouse node\(s\), 1 Keeper member\(s\)\) needs about 21792 MiB .* 4000 MiB available; give a smaller shape$/,
    );
    expect(parseSelection({ ...values, shape: '2x2' }, 'ci', () => 4000).shape).toEqual({ shards: 2, replicas: 2 });
  });
});
