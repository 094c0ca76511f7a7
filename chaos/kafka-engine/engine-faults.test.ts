import { describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { engineFaults } from './engine-faults.ts';
import type { EngineSettings } from './engine-settings.ts';

// Only what engineFaults reads of a cluster: one replica and one broker it reaches.
const description = {
  shards: [{ name: 's1', replicas: [{ name: 's1r1', direct_http: 'http://127.0.0.1:1', proxies: {} }] }],
  kafka: [{ name: 'kf1', bootstrap: { s1r1: '127.0.0.1:2' }, proxies: { s1r1: 's1r1_kafka_kf1' } }],
} as unknown as ClusterDescription;

const settings: EngineSettings = {
  offsets: 'broker',
  numConsumers: 1,
  threadPerConsumer: false,
  maxBlockSize: 64,
  flushIntervalMs: 100,
  pollMaxBatchSize: 64,
  commitEveryBatch: false,
  handleErrorMode: 'stream',
  skipBrokenMessages: 0,
};

const rebalance = (offsets: EngineSettings['offsets'], numConsumers: 1 | 2) =>
  engineFaults({ kind: 'rebalance', how: 'consumers' }, description, 's1r1', 0, {
    ...settings,
    offsets,
    numConsumers,
  }).map(String);

describe('a rebalance by kafka_num_consumers', () => {
  it('makes the table again with the other number of consumers where the group keeps its offsets in the broker', () => {
    expect(rebalance('broker', 1)).toEqual(['recreate(s1r1.events_kafka, kafka_num_consumers = 2)']);
    expect(rebalance('broker', 2)).toEqual(['recreate(s1r1.events_kafka, kafka_num_consumers = 1)']);
  });

  it('detaches and attaches instead where the offsets are in Keeper, which a drop would take with it', () => {
    expect(rebalance('keeper', 2)).toEqual(['detach(s1r1.events_kafka)']);
  });
});

describe('a replica killed between a block and its commit', () => {
  const kill = (offsets: EngineSettings['offsets'], commitEveryBatch = false) =>
    engineFaults({ kind: 'replica-kill', between: 'write-and-commit' }, description, 's1r1', 0, {
      ...settings,
      offsets,
      commitEveryBatch,
    }).map(String);

  it('slows the commit and waits for a block where the offsets can be read back (the broker), saying whether it hit', () => {
    expect(kill('broker')).toEqual(['kill(s1r1) after a block, its commit slowed by 1500 ms; not applied']);
  });

  it('is a kill at a drawn moment where they cannot (Keeper, on the embedded engine)', () => {
    expect(kill('keeper')).toEqual(
      engineFaults({ kind: 'replica-kill' }, description, 's1r1', 0, settings).map(String),
    );
  });

  it('is a kill at a drawn moment where each batch is committed before its block is written (no such window)', () => {
    expect(kill('broker', true)).toEqual(
      engineFaults({ kind: 'replica-kill' }, description, 's1r1', 0, settings).map(String),
    );
  });
});
