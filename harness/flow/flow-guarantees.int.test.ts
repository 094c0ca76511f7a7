import { Toxiproxy, type Toxic } from 'toxiproxy-node-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRASH_POINTS, eventsOfType, insertAttempts, type Stamped } from './history/index.ts';
import { sourceConfig } from './source/source-config.ts';
import { DATABASE, exactlyOnceProblems, FlowTestCluster, rendezvousShard, SPEC_PORT } from './testing/flow-cluster.ts';
import { WorkerExitedError } from './worker-errors.ts';

// The runtime model with the REAL sinks on the embedded 2x2 cluster: workers are child processes
// that SIGKILL themselves at the named crash points, and ground truth is read on every replica.

const source = sourceConfig({
  seed: 20251130,
  partitions: 2,
  messagesPerEpoch: 20,
  keySpace: 8,
  payloadBytes: { min: 16, max: 96 },
});
let cluster: FlowTestCluster;

beforeAll(async () => {
  cluster = await FlowTestCluster.start();
});
afterAll(async () => {
  await cluster?.down();
});

const spec = (sink_class_name: string, name: string, table: string, hosts: object, dynamic: object = {}) => ({
  sink_class_name,
  name,
  parameters: { ...hosts, port: SPEC_PORT, database: DATABASE, table },
  dynamic_parameters: { retry_backoff: '100ms', ...dynamic },
});

const committedIds = (events: readonly Stamped[]) =>
  eventsOfType(events, 'epoch-commit').flatMap((commit) => commit.messageIds);
const deliveredIds = (events: readonly Stamped[]) =>
  eventsOfType(events, 'acks').flatMap((event) =>
    event.acks.filter((ack) => ack.ack === 'delivered').map((ack) => ack.id),
  );
/** Copies of each message over every replica of every shard. */
const totals = async (table: string): Promise<Map<string, number>> => {
  const total = new Map<string, number>();
  for (const { counts } of await cluster.counts(table))
    for (const [id, n] of counts) total.set(id, (total.get(id) ?? 0) + n);
  return total;
};
/** Partition 0's messages of one epoch (20 per epoch). */
const epochIds = (epoch: number) => Array.from({ length: 20 }, (_, i) => `1-0-${(epoch - 1) * 20 + i}`);

describe.each([
  { sinkClass: 'ClickHouseBatchingSink', hosts: () => ({ hosts: cluster.shardHosts.s1 }), keys: [] as string[] },
  {
    sinkClass: 'ShardedClickHouseBatchingSink',
    hosts: () => ({ shard_hosts: cluster.shardHosts, sharding_key_columns: ['key'] }),
    keys: ['key'],
  },
])('$sinkClass (exactly-once) on the real cluster', ({ sinkClass, hosts, keys }) => {
  it.each(CRASH_POINTS)(
    'a crash at %s, then a restart, leaves every acknowledged message exactly once on its rendezvous shard on every replica',
    async (point) => {
      const name = `${sinkClass === 'ClickHouseBatchingSink' ? 'eo' : 'seo'}_${point.replaceAll('-', '_')}`;
      const table = await cluster.createTable(name, source);
      const flowSpec = spec(sinkClass, name, table, hosts(), { max_rows_per_batch: 8 });
      const supervisor = cluster.supervisor(source, name);
      try {
        const first = await supervisor.launch({ spec: flowSpec, crash: { point, partition: 0, batch: 2 } });
        await first.runEpochs(2).catch((error: unknown) => expect(error).toBeInstanceOf(WorkerExitedError));
        await first.drain().catch((error: unknown) => expect(error).toBeInstanceOf(WorkerExitedError));
        expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

        const second = await supervisor.launch({ spec: flowSpec });
        await second.runEpochs(1);
        await second.drain();
        await second.stop();

        const { events } = await supervisor.close();
        expect(eventsOfType(events, 'crash')).toEqual([expect.objectContaining({ point, partition: 0, batch: 2 })]);
        // The restart really replayed: batch 2 of partition 0 was attempted again by the second worker.
        const replays = insertAttempts(events).filter(
          (attempt) =>
            attempt.invoke.writer === second.id && attempt.invoke.partition === 0 && attempt.invoke.batch === 2,
        );
        if (point !== 'after-state') expect(replays.length).toBeGreaterThan(0);
        const acknowledged = committedIds(events);
        expect(acknowledged).toHaveLength(2 * 3 * 20);
        const shards = Object.keys(cluster.shardHosts);
        const expectedShard = (id: string) =>
          sinkClass === 'ClickHouseBatchingSink' ? 's1' : rendezvousShard(source, id, shards, keys);
        expect(exactlyOnceProblems(await cluster.counts(table), acknowledged, expectedShard)).toEqual([]);
      } finally {
        await supervisor.close();
      }
    },
  );
});

describe('AtLeastOnceClickHouseSink on the real cluster', () => {
  it('a crash after the insert and before the commit duplicates the epoch on restart, and loses nothing', async () => {
    // ClickHouse's content-hash dedup would silently drop the identical replayed block; with the
    // window at 0 the table shows exactly what the runtime wrote.
    const table = await cluster.createTable('alo_dup', source, 'replicated_deduplication_window = 0');
    const flowSpec = spec('AtLeastOnceClickHouseSink', 'alo_dup', table, { shard_hosts: cluster.shardHosts });
    const supervisor = cluster.supervisor(source, 'alo');
    try {
      const first = await supervisor.launch({
        spec: flowSpec,
        partitions: [0],
        crash: { point: 'after-insert-before-state', batch: 2 },
      });
      await expect(first.runEpochs(3)).rejects.toBeInstanceOf(WorkerExitedError);
      const second = await supervisor.launch({ spec: flowSpec, partitions: [0] });
      expect((await second.runEpochs(2))[0]?.map((outcome) => outcome.status === 'committed' && outcome.epoch)).toEqual(
        [2, 3],
      );
      await second.stop();

      const { events } = await supervisor.close();
      const epoch2 = Array.from({ length: 20 }, (_, i) => `1-0-${20 + i}`);
      // Epoch 2 went in twice, both times acknowledged by ClickHouse: once per worker.
      const okWrites = insertAttempts(events).filter(
        (attempt) => attempt.outcome === 'ok' && attempt.invoke.batch === 2,
      );
      expect(new Set(okWrites.map((attempt) => attempt.invoke.writer))).toEqual(new Set([first.id, second.id]));
      const total = await totals(table);
      // Every row is on both replicas of its shard: a count of 4 is two copies.
      expect(epoch2.map((id) => total.get(id))).toEqual(epoch2.map(() => 4));
      const acknowledged = committedIds(events);
      expect(acknowledged).toHaveLength(60);
      expect(acknowledged.filter((id) => (total.get(id) ?? 0) < 2)).toEqual([]);
    } finally {
      await supervisor.close();
    }
  });
});

describe('AtMostOnceClickHouseSink on the real cluster', () => {
  it('a crash during an insert never leads to a second insert of its messages; what no INSERT carried yet stays pending and is delivered', async () => {
    const table = await cluster.createTable('amo_crash', source);
    const flowSpec = spec('AtMostOnceClickHouseSink', 'amo_crash', table, { shard_hosts: cluster.shardHosts });
    const supervisor = cluster.supervisor(source, 'amo');
    try {
      const first = await supervisor.launch({ spec: flowSpec, partitions: [0], crash: { point: 'during-insert' } });
      await expect(first.runEpochs(2)).rejects.toBeInstanceOf(WorkerExitedError);
      const second = await supervisor.launch({ spec: flowSpec, partitions: [0] });
      await second.runEpochs(1);
      await second.stop();

      const { events } = await supervisor.close();
      expect(eventsOfType(events, 'state-snapshot').at(-1)).toMatchObject({ nextSeq: 20, epoch: 1 });
      const invoked = (writer: string) =>
        eventsOfType(events, 'insert-invoke')
          .filter((event) => event.writer === writer)
          .flatMap((event) => event.messageIds);
      // Ordered mode, two shards: the crash cut the first shard's INSERT; the other shard's part
      // of epoch 1 never reached an INSERT, stayed in output_messages and went first after the restart.
      const cut = invoked(first.id);
      expect(cut.length).toBeGreaterThan(0);
      expect(cut.length).toBeLessThan(20);
      expect(invoked(second.id).filter((id) => cut.includes(id))).toEqual([]);
      for (const { counts } of await cluster.counts(table))
        expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
      expect(deliveredIds(events).sort()).toEqual(
        [...epochIds(1).filter((id) => !cut.includes(id)), ...epochIds(2)].sort(),
      );
    } finally {
      await supervisor.close();
    }
  });

  it.each(['after-state', 'before-insert'] as const)(
    'ordered mode: a crash at %s keeps the epoch pending in output_messages, and the restart delivers it once',
    async (point) => {
      const name = `amo_pending_${point.replaceAll('-', '_')}`;
      const table = await cluster.createTable(name, source);
      const flowSpec = spec('AtMostOnceClickHouseSink', name, table, { host: 's1r1' });
      const supervisor = cluster.supervisor(source, name);
      try {
        const first = await supervisor.launch({ spec: flowSpec, partitions: [0], crash: { point } });
        await expect(first.runEpochs(1)).rejects.toBeInstanceOf(WorkerExitedError);
        const second = await supervisor.launch({ spec: flowSpec, partitions: [0] });
        await second.drain();
        await second.stop();

        const { events } = await supervisor.close();
        expect(eventsOfType(events, 'epoch-commit')).toEqual([expect.objectContaining({ epoch: 1 })]);
        expect(deliveredIds(events)).toEqual(epochIds(1));
        const total = await totals(table);
        // One INSERT on one replica of s1, replicated to its sibling: two copies, one per replica.
        expect(epochIds(1).map((id) => total.get(id))).toEqual(epochIds(1).map(() => 2));
      } finally {
        await supervisor.close();
      }
    },
  );

  it('an INSERT whose answer never comes back is acked with an error and never sent again', async () => {
    const table = await cluster.createTable('amo_timeout', source);
    const flowSpec = spec('AtMostOnceClickHouseSink', 'amo_timeout', table, { host: 's1r1' }, { write_timeout: '1s' });
    const supervisor = cluster.supervisor(source, 'amo-timeout');
    const proxy = await new Toxiproxy(cluster.cluster.description.toxiproxy ?? '').get('s1r1_client');
    let toxic: Toxic<unknown> | undefined;
    try {
      const worker = await supervisor.launch({ spec: flowSpec, partitions: [0] });
      // The session is opened by the first write; slow only the answers of the INSERT that follows.
      await worker.runEpochs(1);
      toxic = await proxy.addToxic({
        name: 'amo_slow_answers',
        type: 'latency',
        stream: 'downstream',
        toxicity: 1,
        attributes: { latency: 3000, jitter: 0 },
      } as never);
      await worker.runEpochs(1);
      await toxic.remove();
      toxic = undefined;
      await worker.stop();

      const { events } = await supervisor.close();
      const acks = eventsOfType(events, 'acks');
      expect(acks[1]?.acks.map((ack) => ack.ack)).toEqual(Array(20).fill('acked-with-error'));
      const epoch2 = Array.from({ length: 20 }, (_, i) => `1-0-${20 + i}`);
      const attempts = insertAttempts(events).filter((attempt) =>
        attempt.invoke.messageIds.some((id) => epoch2.includes(id)),
      );
      expect(attempts.map((attempt) => [attempt.invoke.attempt, attempt.sent, attempt.outcome])).toEqual([
        [1, true, 'unknown'],
      ]);
      for (const { counts } of await cluster.counts(table))
        expect(epoch2.filter((id) => (counts.get(id) ?? 0) > 1)).toEqual([]);
    } finally {
      await toxic?.remove();
      await supervisor.close();
    }
  });
});

// A zombie writer (the Kafka Connect ClickHouse sink's issue #24): a worker stalls in front of an
// INSERT, the controller starts another on the same partition, then the stalled one wakes up. The
// runtime fences by the store, not by an epoch number: every commit and delivered mark re-checks
// the progress it builds on, and at-most-once takes its pending messages all or nothing.
describe('a zombie worker that wakes up after another took over its partition', () => {
  it.each([
    { sinkClass: 'ClickHouseBatchingSink', name: 'zombie_eo', code: 'FLOW_STATE_CONFLICT', copies: 2 },
    { sinkClass: 'AtMostOnceClickHouseSink', name: 'zombie_amo', code: 'FLOW_OUTPUT_FENCED', copies: 2 },
  ])(
    '$sinkClass: the zombie cannot write its rows a second time ($code)',
    async ({ sinkClass, name, code, copies }) => {
      const table = await cluster.createTable(name, source);
      const flowSpec = spec(sinkClass, name, table, { host: 's1r1' });
      const supervisor = cluster.supervisor(source, name);
      try {
        const zombie = await supervisor.launch({ spec: flowSpec, partitions: [0] });
        await zombie.runEpochs(1);
        await zombie.drain();
        // The zombie's next INSERT is held before its request: the stall.
        const gate = await zombie.armGate(0);
        const stalled = zombie.runEpochs(1).then(() => zombie.drain());
        await gate.held;
        const successor = await supervisor.launch({ spec: flowSpec, partitions: [0] });
        await successor.drain();
        await successor.runEpochs(1);
        await successor.drain();
        gate.openRequest();
        gate.openOutcome();
        await stalled.catch(() => undefined);
        const [zombieStatus] = await zombie.status();
        await zombie.stop();
        await successor.stop();
        await supervisor.close();

        expect(zombieStatus).toMatchObject({ state: 'failed', code });
        // Epochs 1-3 once each, on both replicas of s1: the successor delivered epoch 2, the zombie's
        // INSERT of it was refused (at-most-once) or dropped by its token (exactly-once).
        const total = await totals(table);
        expect([...total.keys()].sort()).toEqual([...epochIds(1), ...epochIds(2), ...epochIds(3)].sort());
        expect([...total.values()].filter((n) => n !== copies)).toEqual([]);
      } finally {
        await supervisor.close();
      }
    },
  );
});
