import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { CrashPlan } from './history/index.ts';
import type { SinkFactory } from './runtime/sink-factory.ts';
import { sourceConfig } from './source/source-config.ts';
import { StateStore } from './store/state-store.ts';
import { fakeSinkFactory } from './testing/fake-sink-factory.ts';
import type { FakeFaults } from './testing/fake-sinks.ts';
import { countIds, MemoryTable } from './testing/fake-table.ts';
import { freezingCrash, MemoryHistory } from './testing/memory-history.ts';
import type { WorkerConfig } from './worker-config.ts';
import { WorkerHost } from './worker-host.ts';

// Fast tier: the runtime against in-process fakes. These prove the runtime's bookkeeping (commit
// order, outbox, replay, refusals); the delivery guarantees against ClickHouse are proven by the
// integration tests on the real cluster.

const silent = pino({ level: 'silent' });
let dir: string;
let table: MemoryTable;
let history: MemoryHistory;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flow-host-'));
  table = new MemoryTable();
  history = new MemoryHistory();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const source = sourceConfig({ seed: 7, partitions: 2, messagesPerEpoch: 10 });
const batching = (parameters: object = { host: 'ch-1' }, className = 'ClickHouseBatchingSink') => ({
  sink_class_name: className,
  name: 'events',
  parameters: { table: 'events', ...parameters },
  dynamic_parameters: { max_rows_per_batch: 4 },
});
const ofClass = (className: string) => ({
  sink_class_name: className,
  name: 'events',
  parameters: { host: 'ch-1', table: 'events' },
});

const config = (spec: unknown, extra: Partial<WorkerConfig> = {}): WorkerConfig => ({
  workerId: 'w1',
  storePath: join(dir, 'state.sqlite'),
  historyDir: join(dir, 'history'),
  spec,
  partitions: [0],
  source,
  ...extra,
});

interface Started {
  readonly host: WorkerHost;
  readonly crashed: Promise<unknown>;
}

async function start(
  spec: unknown,
  extra: Partial<WorkerConfig> = {},
  options: { factory?: SinkFactory; faults?: FakeFaults } = {},
): Promise<Started> {
  const crash = freezingCrash();
  const factory = options.factory ?? fakeSinkFactory(table, { faults: options.faults });
  const host = await WorkerHost.start(config(spec, extra), factory, {
    history,
    crashAction: crash.action,
    log: silent,
  });
  if (!(host instanceof WorkerHost)) throw new Error(`unexpected refusal: ${host.message}`);
  return { host, crashed: crash.hit };
}

/** Starts a runtime with a crash armed, lets it run into the crash, and abandons it there. */
async function runIntoCrash(
  spec: unknown,
  crash: CrashPlan,
  work: (host: WorkerHost) => Promise<unknown>,
  extra: Partial<WorkerConfig> = {},
) {
  const { host, crashed } = await start(spec, { ...extra, crash });
  void work(host);
  return crashed;
}

describe('WorkerHost — batching classes', () => {
  it('commits each epoch as batches that never span epochs and delivers them in batch order, each message once', async () => {
    const { host } = await start(batching());
    const outcomes = await host.runEpochs(3);
    expect(outcomes[0]?.map((outcome) => outcome.status === 'committed' && outcome.batches)).toEqual([
      [1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ]);
    await host.drain();
    expect(history.ofType('delivered').map((event) => event.batch)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const commits = history.ofType('epoch-commit');
    expect(commits.map((commit) => commit.batches.map((batch) => batch.token))).toEqual([
      ['1-0-3', '1-0-7', '1-0-9'],
      ['1-0-13', '1-0-17', '1-0-19'],
      ['1-0-23', '1-0-27', '1-0-29'],
    ]);
    expect([...countIds(table).values()]).toEqual(Array(30).fill(1));
    expect(host.status()).toEqual([
      expect.objectContaining({ state: 'running', progress: { nextSeq: 30, epoch: 3, nextBatch: 10 }, undelivered: 0 }),
    ]);
    await host.close();
  });

  it.each(['before-insert', 'during-insert', 'after-insert-before-state', 'after-state'] as const)(
    'a crash at %s, then a restart that replays the outbox, leaves every committed message exactly once',
    async (point) => {
      const hit = await runIntoCrash(batching(), { point, batch: 2 }, async (host) => {
        await host.runEpochs(2);
        await host.drain();
      });
      expect(hit).toMatchObject({ point, batch: 2 });
      const { host } = await start(batching());
      await host.drain();
      const committed = history.ofType('epoch-commit').flatMap((commit) => commit.messageIds);
      const counts = countIds(table);
      expect(committed.map((id) => counts.get(id))).toEqual(committed.map(() => 1));
      expect(counts.size).toBe(committed.length);
      await host.close();
    },
  );

  it('replays after a crash with the same tokens, so a batch that landed is deduplicated, not inserted again', async () => {
    await runIntoCrash(batching(), { point: 'after-insert-before-state' }, async (host) => {
      await host.runEpochs(1);
      await host.drain();
    });
    const { host } = await start(batching());
    await host.drain();
    const attempts = history.ofType('insert-invoke').filter((event) => event.batch === 1);
    expect(attempts.map((attempt) => attempt.dedupToken)).toEqual(['1-0-3', '1-0-3']);
    expect(table.inserts().filter((block) => block.token === '1-0-3')).toHaveLength(1);
    await host.close();
  });

  it('stops a partition whose delivery gave up and keeps its batches for the next instance', async () => {
    const { host } = await start(batching(), {}, { faults: { failInserts: 1 } });
    await host.runEpochs(1);
    await expect(host.drain()).rejects.toMatchObject({ code: 'FLOW_DELIVERY_FAILED' });
    expect(await host.runEpochs(1)).toEqual({
      0: [{ status: 'not-running', reason: 'Giving up insert into ClickHouse' }],
    });
    expect(history.ofType('delivery-failed')).toEqual([
      expect.objectContaining({
        batch: 1,
        error: { message: 'Giving up insert into ClickHouse', code: 'SINK_INSERT_GAVE_UP' },
      }),
    ]);
    // Flow retries the failed job on the same instance, which refuses it without an INSERT.
    expect(history.ofType('write-after-give-up')).toEqual([expect.objectContaining({ batch: 1, refused: true })]);
    expect(history.ofType('insert-invoke')).toHaveLength(1);
    await host.close();
    const restarted = await start(batching());
    await restarted.host.drain();
    expect(countIds(table).size).toBe(10);
    await restarted.host.close();
  });
  it('a give-up on one partition never cuts another partition’s delivery short', async () => {
    const { host } = await start(batching(), { partitions: [0, 1] }, { faults: { failInserts: 1 } });
    await host.runEpochs(1);
    await expect(host.drain()).rejects.toMatchObject({ code: 'FLOW_DELIVERY_FAILED' });
    // The drain answered only once the other partition had delivered every batch it holds.
    const stopped = history.ofType('delivery-failed').map((event) => event.partition);
    const delivered = [...countIds(table).keys()];
    expect(stopped).toHaveLength(1);
    expect(delivered).toHaveLength(10);
    expect(delivered.every((id) => !id.startsWith(`1-${stopped[0]}-`))).toBe(true);
    await host.close();
  });
});

describe('WorkerHost — topology guard and spec changes', () => {
  const backlog = async (spec: unknown, partitions = [0]) => {
    const { host } = await start(spec, { partitions, deliveryPaused: true });
    await host.runEpochs(2);
    await host.close();
  };

  it('refuses a host → shard_hosts switch with undelivered batches with the seed’s exact message, inserts nothing, and applies it after restore + drain', async () => {
    await backlog(batching());
    const sharded = batching({ shard_hosts: { a: ['ch-a'], b: ['ch-b'] } }, 'ShardedClickHouseBatchingSink');
    const { host } = await start(sharded);
    const [refusal] = history.ofType('partition-refused');
    expect(refusal?.code).toBe('SINK_TOPOLOGY_CHANGED');
    expect(refusal?.message).toMatch(
      /^Refusing to start the ClickHouse sink: the shard topology changed while 6 batch\(es\) are still undelivered; replaying them under the new topology would duplicate or drop rows\. Restore the previous shard_hosts \/ sharding_key_columns, let the pipeline drain to completion, then apply the change\n {4}persisted_topology_fingerprint = unsharded\n {4}spec_topology_fingerprint {6}= [0-9a-f]{16}\n {4}oldest_undelivered_batch_bound = 1-0-3$/,
    );
    expect(await host.runEpochs(1)).toEqual({ 0: [{ status: 'not-running', reason: refusal?.message }] });
    expect(table.inserts()).toEqual([]);
    await host.close();

    const again = await start(sharded);
    expect(history.ofType('partition-refused')).toHaveLength(2);
    await again.host.close();

    const restored = await start(batching());
    await restored.host.drain();
    await restored.host.close();
    expect(countIds(table).size).toBe(20);

    const migrated = await start(sharded);
    await migrated.host.runEpochs(1);
    await migrated.host.drain();
    expect(
      table
        .inserts()
        .slice(-2)
        .map((block) => block.shard),
    ).toEqual(['a', 'b']);
    expect(migrated.host.status()[0]).toMatchObject({
      sinkClass: 'ShardedClickHouseBatchingSink',
      state: 'running',
      progress: { nextSeq: 30 },
    });
    await migrated.host.close();
  });

  it('refuses a changed host list of a plain target, and a drained partition moves on while the other still refuses', async () => {
    await backlog(batching(), [0, 1]);
    const drain0 = await start(batching(), { partitions: [0] });
    await drain0.host.drain();
    await drain0.host.close();

    const { host } = await start(batching({ hosts: ['ch-1', 'ch-2'] }), { partitions: [0, 1] });
    expect(host.status().map((status) => [status.partition, status.state])).toEqual([
      [0, 'running'],
      [1, 'refused'],
    ]);
    expect(host.status()[1]?.reason).toMatch(
      /^Refusing to start the ClickHouse sink: the target table changed while 6 batch\(es\)/,
    );
    expect(host.status()[1]?.reason).toMatch(/oldest_undelivered_batch_bound = 1-1-3$/);
    const outcomes = await host.runEpochs(1);
    expect(outcomes[0]?.[0]?.status).toBe('committed');
    expect(outcomes[1]?.[0]?.status).toBe('not-running');
    await host.close();
  });

  it('refuses a spec naming a class the registry lacks before the store is read: the state file is not even created', async () => {
    const crash = freezingCrash();
    const factory = fakeSinkFactory(table, { without: ['ShardedClickHouseBatchingSink'] });
    const refusal = await WorkerHost.start(
      config(batching({ shard_hosts: { a: ['ch-a'] } }, 'ShardedClickHouseBatchingSink')),
      factory,
      {
        history,
        crashAction: crash.action,
        log: silent,
      },
    );
    expect(refusal).toMatchObject({ stage: 'spec', code: 'SINK_SPEC_INVALID' });
    expect(history.ofType('spec-refusal')[0]?.message).toMatch(/class-not-registered/);
    expect(existsSync(join(dir, 'state.sqlite'))).toBe(false);
  });

  it('refuses a corrupt state file with a clear error and leaves it as it was', async () => {
    writeFileSync(join(dir, 'state.sqlite'), 'garbage'.repeat(100));
    const crash = freezingCrash();
    const refusal = await WorkerHost.start(config(batching()), fakeSinkFactory(table), {
      history,
      crashAction: crash.action,
      log: silent,
    });
    expect(refusal).toMatchObject({ stage: 'store', code: 'FLOW_STATE_NOT_SQLITE' });
    expect(readFileSync(join(dir, 'state.sqlite'), 'utf8')).toBe('garbage'.repeat(100));
  });
});

describe('WorkerHost — at-least-once', () => {
  it('does not commit an epoch whose write failed and processes it again after the restart: no loss, no duplicate', async () => {
    const { host } = await start(ofClass('AtLeastOnceClickHouseSink'), {}, { faults: { failInserts: 1 } });
    expect((await host.runEpochs(2))[0]).toEqual([
      expect.objectContaining({ status: 'failed', epoch: 1, fromSeq: 0, toSeq: 10 }),
    ]);
    expect(host.status()[0]).toMatchObject({ state: 'failed', progress: { nextSeq: 0, epoch: 0 } });
    await host.close();
    const restarted = await start(ofClass('AtLeastOnceClickHouseSink'));
    expect((await restarted.host.runEpochs(1))[0]).toEqual([
      expect.objectContaining({ status: 'committed', epoch: 1, fromSeq: 0 }),
    ]);
    expect([...countIds(table).values()]).toEqual(Array(10).fill(1));
    await restarted.host.close();
  });

  it('a crash after the write and before the commit duplicates the epoch on restart and loses nothing', async () => {
    await runIntoCrash(ofClass('AtLeastOnceClickHouseSink'), { point: 'after-insert-before-state', batch: 2 }, (host) =>
      host.runEpochs(3),
    );
    const { host } = await start(ofClass('AtLeastOnceClickHouseSink'));
    await host.runEpochs(1);
    const counts = countIds(table);
    expect([...counts].filter(([, n]) => n > 1).map(([id]) => id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `1-0-${10 + i}`),
    );
    expect(counts.size).toBe(20);
    await host.close();
  });
});

describe('WorkerHost — at-most-once', () => {
  it('commits input progress BEFORE the write and records an ack per message', async () => {
    const factory = fakeSinkFactory(table);
    const progressSeenByWrite: number[] = [];
    const spying: SinkFactory = {
      registry: factory.registry,
      async create(spec, context) {
        const sink = await factory.create(spec, context);
        if (sink.kind !== 'at-most-once') throw new Error('expected at-most-once');
        const write = sink.write.bind(sink);
        return Object.assign(sink, {
          write: (messages: Parameters<typeof write>[0]) => {
            const store = StateStore.open(join(dir, 'state.sqlite'));
            progressSeenByWrite.push(store.progress('events', 0).nextSeq);
            store.close();
            return write(messages);
          },
        });
      },
    };
    const { host } = await start(ofClass('AtMostOnceClickHouseSink'), {}, { factory: spying });
    await host.runEpochs(2);
    expect(progressSeenByWrite).toEqual([10, 20]);
    expect(history.ofType('acks').flatMap((event) => event.acks.map((ack) => ack.ack))).toEqual(
      Array(20).fill('delivered'),
    );
    await host.close();
  });

  it('ordered mode: a crash after the commit keeps the epoch pending, and the restart delivers it first, once', async () => {
    await runIntoCrash(ofClass('AtMostOnceClickHouseSink'), { point: 'after-state', batch: 2 }, (host) =>
      host.runEpochs(3),
    );
    const { host } = await start(ofClass('AtMostOnceClickHouseSink'));
    await host.runEpochs(1);
    const counts = countIds(table);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(counts.size).toBe(30);
    expect(history.ofType('acks').map((event) => event.epoch)).toEqual([1, 2, 3]);
    await host.close();
  });

  it('ordered mode: a crash during an INSERT never sends its message again; the messages behind it stay pending', async () => {
    await runIntoCrash(ofClass('AtMostOnceClickHouseSink'), { point: 'during-insert', batch: 12 }, (host) =>
      host.runEpochs(3),
    );
    const { host } = await start(ofClass('AtMostOnceClickHouseSink'));
    await host.drain();
    const invoked = history.ofType('insert-invoke').map((event) => event.messageIds[0]);
    expect(invoked.filter((id) => id === '1-0-12')).toHaveLength(1);
    const counts = countIds(table);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(counts.size).toBe(20);
    expect(
      history
        .ofType('acks')
        .at(-1)
        ?.acks.map((ack) => ack.id),
    ).toEqual(Array.from({ length: 7 }, (_, i) => `1-0-${13 + i}`));
    await host.close();
  });

  it('acks a message whose INSERT failed with an error instead of retrying it', async () => {
    const { host } = await start(ofClass('AtMostOnceClickHouseSink'), {}, { faults: { failInserts: 1 } });
    await host.runEpochs(1);
    const acks = history.ofType('acks')[0]?.acks ?? [];
    expect(acks[0]).toEqual({ id: '1-0-0', ack: 'acked-with-error' });
    expect(acks.slice(1).every((ack) => ack.ack === 'delivered')).toBe(true);
    expect(countIds(table).has('1-0-0')).toBe(false);
    await host.close();
  });
});

describe('WorkerHost — dynamic reconfiguration', () => {
  it('applies new dynamic parameters to the running sinks (new epochs cut by the new limit) and refuses static ones', async () => {
    const { host } = await start(batching());
    await host.reconfigure({ max_rows_per_batch: 5 });
    expect((await host.runEpochs(1))[0]).toEqual([expect.objectContaining({ batches: [1, 2] })]);
    await expect(host.reconfigure({ table: 'other' })).rejects.toMatchObject({
      code: 'SINK_SPEC_INVALID',
      message: expect.stringMatching(/table/),
    });
    // The history records the accepted change only.
    const recorded = history.ofType('reconfigured');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ partitions: [0], dynamic: expect.objectContaining({ max_rows_per_batch: 5 }) });
    await host.close();
  });

  it('records a batching sink whose cut throws as a failed epoch: nothing committed, the partition stopped', async () => {
    const { host } = await start(batching(), {}, { faults: { failInserts: 0, failCuts: 1 } });
    expect((await host.runEpochs(1))[0]).toEqual([
      expect.objectContaining({ status: 'failed', error: 'fake: cut failed' }),
    ]);
    expect(history.ofType('epoch-failed')).toEqual([
      expect.objectContaining({ partition: 0, error: { message: 'fake: cut failed', code: 'FAKE_CUT_FAILED' } }),
    ]);
    expect(history.ofType('epoch-commit')).toEqual([]);
    expect(host.status()[0]).toMatchObject({ state: 'failed', reason: 'fake: cut failed' });
    await host.close();
  });

  it('records a sink that throws on valid parameters as its own outcome, and the partition goes on', async () => {
    const { host } = await start(batching(), {}, { faults: { failInserts: 0, refuseReconfigures: 1 } });
    await host.reconfigure({ max_rows_per_batch: 5 });
    expect(history.ofType('reconfigure-failed')).toEqual([
      expect.objectContaining({
        partition: 0,
        error: { message: 'fake: reconfigure refused', code: 'FAKE_RECONFIGURE_REFUSED' },
      }),
    ]);
    expect(history.ofType('reconfigured')).toEqual([expect.objectContaining({ partitions: [] })]);
    expect((await host.runEpochs(1))[0]).toEqual([expect.objectContaining({ status: 'committed' })]);
    await host.close();
  });
});
