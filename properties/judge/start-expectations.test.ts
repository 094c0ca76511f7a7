import { describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import type { FlowEvent, Stamped } from '../../harness/flow/history/index.ts';
import { specPeriods } from './spec-periods.ts';
import { startExpectations } from './start-expectations.ts';

const description = {
  shards: [
    { name: 's1', replicas: [{ name: 's1r1', http: 'http://127.10.1.1:8123' }] },
    { name: 's2', replicas: [{ name: 's2r1', http: 'http://127.10.2.1:8123' }] },
  ],
} as unknown as ClusterDescription;

const sharded = (keys: string[], shards: Record<string, string[]>, dynamic: Record<string, unknown> = {}) => ({
  sink_class_name: 'ShardedClickHouseBatchingSink',
  name: 'chaos_sink',
  parameters: { shard_hosts: shards, port: 8123, sharding_key_columns: keys, database: 'd', table: 'events_rep' },
  dynamic_parameters: dynamic,
});
const TWO = sharded(['key'], { a: ['127.10.1.1'], b: ['127.10.2.1'] });
const ADDED = sharded(['key'], { a: ['127.10.1.1'], b: ['127.10.2.1'], c: ['127.10.2.1'] });

/** A worker's launch and what each of its partitions did: started over `undelivered` batches, or refused. */
function launch(
  at: number,
  pid: number,
  spec: unknown,
  partitions: Record<number, [number, 'started' | 'refused']>,
  label?: string,
) {
  const stamp = { writer: `w${pid}`, pid, seq: 0 };
  const events: Stamped<FlowEvent>[] = [
    {
      type: 'worker-launch',
      worker: `w${pid}`,
      workerPid: pid,
      restart: at > 1,
      sink: 'chaos_sink',
      sinkClass: 'ShardedClickHouseBatchingSink',
      partitions: Object.keys(partitions).map(Number),
      spec,
      ...(label === undefined ? {} : { label }),
      at,
      writer: 'supervisor',
      pid: 1,
      seq: at,
    },
  ];
  for (const [key, [undelivered, fate]] of Object.entries(partitions)) {
    const partition = Number(key);
    const batches = Array.from({ length: undelivered }, (_, number) => ({ number, token: `1-${partition}-${number}` }));
    events.push({
      type: 'state-snapshot',
      sink: 'chaos_sink',
      partition,
      nextSeq: 0,
      epoch: 0,
      nextBatch: 0,
      undelivered: batches,
      at: at + 1,
      ...stamp,
    });
    events.push(
      fate === 'started'
        ? {
            type: 'partition-started',
            sink: 'chaos_sink',
            sinkClass: 'ShardedClickHouseBatchingSink',
            partition,
            at: at + 2,
            ...stamp,
          }
        : {
            type: 'partition-refused',
            sink: 'chaos_sink',
            sinkClass: 'ShardedClickHouseBatchingSink',
            partition,
            code: 'X',
            message: 'refused',
            at: at + 2,
            ...stamp,
          },
    );
  }
  return events;
}

describe('which starts had to refuse, from the history alone', () => {
  it('a shard added over a backlog must be refused, over a drained partition let through, and refused again until restored', () => {
    const events = [
      ...launch(1, 10, TWO, { 0: [0, 'started'], 1: [0, 'started'] }),
      ...launch(100, 11, ADDED, { 0: [2, 'refused'], 1: [0, 'started'] }, 'a shard added'),
      ...launch(200, 12, ADDED, { 0: [2, 'refused'] }, 'a shard added'),
      ...launch(300, 13, TWO, { 0: [2, 'started'] }, 'restored'),
    ];
    const expectations = startExpectations(events, description);
    expect(expectations.map((e) => [e.from, e.partition, e.refuse, e.routingChanged, e.label])).toEqual([
      [1, 0, false, false, 'the same spec'],
      [1, 1, false, false, 'the same spec'],
      [100, 0, true, true, 'a shard added'],
      [100, 1, false, true, 'a shard added'],
      [200, 0, true, true, 'a shard added'],
      [300, 0, false, false, 'restored'],
    ]);
    expect(expectations.map((e) => e.until)).toEqual([100, 100, 200, 200, 300, 302]);
  });

  it('a partition its worker never reported (the worker died first) made no start and is owed nothing', () => {
    const died = launch(100, 11, ADDED, {}, 'a shard added').map((event) =>
      event.type === 'worker-launch' ? { ...event, partitions: [0] } : event,
    );
    expect(startExpectations([...launch(1, 10, TWO, { 0: [3, 'started'] }), ...died], description)).toHaveLength(1);
  });

  it('reads the specs in force: each launch, then each dynamic reconfiguration from when it began to apply', () => {
    const events: Stamped<FlowEvent>[] = [
      ...launch(1, 10, TWO, { 0: [0, 'started'] }),
      {
        type: 'reconfigured',
        startedAt: 50,
        sink: 'chaos_sink',
        partitions: [0],
        dynamic: { max_insert_attempts: 2 },
        at: 60,
        writer: 'w10',
        pid: 10,
        seq: 9,
      },
      ...launch(100, 11, ADDED, { 0: [0, 'started'] }),
    ];
    const periods = specPeriods(events);
    expect(periods.map((period) => period.from)).toEqual([1, 50, 100]);
    expect(periods[1]?.spec.dynamic_parameters).toEqual({ max_insert_attempts: 2 });
    expect(periods[1]?.spec.parameters).toEqual(TWO.parameters);
    expect(periods[2]?.spec).toEqual(ADDED);
  });
});
