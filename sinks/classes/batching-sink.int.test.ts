import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShardedTable } from '../../harness/clickhouse/index.ts';
import type { BatchingSink, SinkContext } from '../api.ts';
import { UNSHARDED_ROUTING_FINGERPRINT } from '../domain/fingerprint.ts';
import { InsertGaveUpError } from '../retry/insert-give-up.ts';
import { expectedShard, messagesFrom, SinkTestCluster } from '../testing/sink-cluster.ts';
import { TopologyChangedError } from '../topology/topology-guard.ts';
import { createSink } from './create-sink.ts';

// The exactly-once classes on the embedded 2x2 cluster: routing, tokens, dedup of replays, the
// topology guard, failover with honest outcomes, give-up and poisoning.
let ch: SinkTestCluster;
const stream = [
  { name: 'id', type: 'string' },
  { name: 'v', type: 'uint64' },
];

beforeAll(async () => {
  ch = await SinkTestCluster.start();
  const clients = [...ch.nodes.values()];
  // Created side by side: each is its own Replicated table, and the file's start waits for the last.
  await Promise.all([
    ...['sharded', 'flat', 'checked'].map((name) =>
      createShardedTable(clients, {
        database: 'eo',
        name,
        columns: `id String, v UInt64${name === 'checked' ? ', CONSTRAINT small CHECK v < 1000' : ''}`,
        orderBy: 'id',
      }),
    ),
    createShardedTable(clients, {
      database: 'eo',
      name: 'fixed',
      columns: 'id String, code FixedString(3)',
      orderBy: 'id',
    }),
    createShardedTable(clients, {
      database: 'eo',
      name: 'computed',
      columns: "id String, v UInt64, doubled UInt64 MATERIALIZED v * 2, shown String ALIAS concat(id, '!')",
      orderBy: 'id',
    }),
  ]);
});

afterAll(async () => {
  await ch?.down();
});

function batchingSink(raw: Parameters<SinkTestCluster['spec']>[0], context: SinkContext): BatchingSink {
  const sink = createSink(ch.spec(raw, 'eo'), context);
  if (sink.kind !== 'batching') throw new Error(`expected a batching sink, got ${sink.kind}`);
  return sink;
}

describe('ShardedClickHouseBatchingSink', () => {
  it('writes each row on its rendezvous shard, on every replica, under <batch token>:<shard>, and dedups a replay', async () => {
    const context = ch.context(stream);
    const sink = batchingSink(
      {
        sink_class_name: 'ShardedClickHouseBatchingSink',
        parameters: { shard_hosts: ch.shardHosts, table: 'sharded_rep' },
        dynamic_parameters: { max_rows_per_batch: 40 },
      },
      context,
    );
    const fingerprints = await sink.init({ fingerprints: undefined, undelivered: [] });
    const messages = messagesFrom(1, 100);
    const batches = sink.cut(messages, 1);
    expect(batches.map((b) => [b.number, b.token])).toEqual([
      [1, '1-0-40'],
      [2, '1-0-80'],
      [3, '1-0-100'],
    ]);
    for (const batch of batches) await sink.deliver(batch);

    for (const shard of ['s1', 's2']) {
      const expected = messages
        .filter((m) => expectedShard(m, ['s1', 's2']) === shard)
        .map((m) => m.row.id)
        .sort();
      expect(expected.length).toBeGreaterThan(20);
      for (const node of ch.shardHosts[shard] ?? []) expect(await ch.idsOn(node, 'eo.sharded_rep')).toEqual(expected);
    }
    const attempts = context.observer.attempts;
    expect(attempts.map((a) => a.attempt.dedupToken)).toEqual([
      '1-0-40:s1',
      '1-0-40:s2',
      '1-0-80:s1',
      '1-0-80:s2',
      '1-0-100:s1',
      '1-0-100:s2',
    ]);
    expect(attempts.every((a) => a.sent && a.result?.outcome === 'ok')).toBe(true);
    const first = attempts[0]?.attempt;
    expect(await ch.queryLogOf('s1r1', first?.queryId ?? '')).toMatchObject({
      type: 'QueryFinish',
      token: '1-0-40:s1',
    });

    // A replay after a crash presents the same tokens with the same blocks: nothing new lands.
    const replaying = batchingSink(
      {
        sink_class_name: 'ShardedClickHouseBatchingSink',
        parameters: { shard_hosts: ch.shardHosts, table: 'sharded_rep' },
        dynamic_parameters: { max_rows_per_batch: 40 },
      },
      ch.context(stream),
    );
    expect(await replaying.init({ fingerprints, undelivered: batches })).toEqual(fingerprints);
    for (const batch of replaying.cut(messages, 1)) await replaying.deliver(batch);
    for (const node of ch.nodes.keys())
      expect(await ch.count(node, 'eo.sharded_rep')).toBe(
        messages.filter((m) => expectedShard(m, ['s1', 's2']) === node.slice(0, 2)).length,
      );
    await sink.close();
    await replaying.close();
  });

  it('refuses to start with the seed message when the routing changed under undelivered batches, inserting nothing', async () => {
    const context = ch.context(stream);
    const sink = batchingSink(
      {
        sink_class_name: 'ShardedClickHouseBatchingSink',
        parameters: { shard_hosts: ch.shardHosts, table: 'sharded_rep' },
      },
      context,
    );
    const pending = sink.cut(messagesFrom(500, 3), 10);
    const persisted = { routing: UNSHARDED_ROUTING_FINGERPRINT, targets: new Map() };
    const error = await sink.init({ fingerprints: persisted, undelivered: pending }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TopologyChangedError);
    expect((error as Error).message).toMatch(
      /^Refusing to start the ClickHouse sink: the shard topology changed while 1 batch\(es\) are still undelivered; .*\n {4}persisted_topology_fingerprint = unsharded\n {4}spec_topology_fingerprint {6}= [0-9a-f]{16}\n {4}oldest_undelivered_batch_bound = 1-0-502$/,
    );
    expect(context.observer.attempts).toEqual([]);
  });
});

describe('ClickHouseBatchingSink', () => {
  it('fails over when an endpoint refuses connections (failed), and a timed-out INSERT that did run (unknown) is deduplicated on retry', async () => {
    const context = ch.context(stream);
    const sink = batchingSink(
      {
        sink_class_name: 'ClickHouseBatchingSink',
        parameters: { hosts: ['s1r1', 's1r2'], table: 'flat_rep' },
        dynamic_parameters: { retry_backoff: '50ms', write_timeout: '1500ms' },
      },
      context,
    );
    await sink.init({ fingerprints: undefined, undelivered: [] });
    const [first, second] = sink.cut(messagesFrom(1, 20), 1).concat(sink.cut(messagesFrom(21, 20), 2));

    await ch.setReachable('s1r1', false);
    try {
      await sink.deliver(first!);
    } finally {
      await ch.setReachable('s1r1', true);
    }
    expect(context.observer.summary()).toEqual(['s1r1:8123#1:failed', 's1r2:8123#2:ok']);
    expect(context.observer.attempts[0]).toMatchObject({
      sent: false,
      result: { error: { code: 'ECONNREFUSED', class: 'transient' } },
    });

    context.observer.clear();
    const slow = await ch.delayAnswers('s1r2', 4000);
    try {
      await sink.deliver(second!);
    } finally {
      await slow.remove();
    }
    expect(context.observer.summary()).toEqual(['s1r2:8123#1:unknown', 's1r1:8123#2:ok']);
    const unknown = context.observer.attempts[0];
    expect(unknown).toMatchObject({
      sent: true,
      attempt: { dedupToken: '1-0-40' },
      result: { error: { message: 'Timeout error.' } },
    });
    // The unknown attempt did commit: s1r2 logged it as finished with its rows.
    const logged = await ch.queryLogOf('s1r2', unknown?.attempt.queryId ?? '');
    expect(logged).toMatchObject({ type: 'QueryFinish', token: '1-0-40' });
    expect(Number(logged?.written_rows)).toBe(20);
    for (const node of ['s1r1', 's1r2']) expect(await ch.count(node, 'eo.flat_rep')).toBe(40);
    await sink.close();
  });

  it('gives up on a server error after max_insert_attempts attempts (unclassified) and then refuses every write (poisoned)', async () => {
    const context = ch.context(stream);
    const sink = batchingSink(
      {
        sink_class_name: 'ClickHouseBatchingSink',
        parameters: { host: 's1r1', table: 'checked_rep' },
        dynamic_parameters: { max_insert_attempts: 3, retry_backoff: '10ms' },
      },
      context,
    );
    await sink.init({ fingerprints: undefined, undelivered: [] });
    const [bad] = sink.cut([{ ...messagesFrom(1, 1)[0]!, row: { id: 'big', v: 5000 } }], 1);
    const error = await sink.deliver(bad!).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsertGaveUpError);
    expect(error).toMatchObject({
      message: 'Giving up insert into ClickHouse',
      details: { errorClass: 'unclassified', attempts: 3, dedupToken: '1-0-1' },
    });
    expect((error as InsertGaveUpError).describe()).toMatch(
      /last_error\s+= .*VIOLATED_CONSTRAINT|last_error\s+= .*Constraint/,
    );
    expect(context.observer.summary()).toEqual(['s1r1:8123#1:failed', 's1r1:8123#2:failed', 's1r1:8123#3:failed']);
    await expect(sink.deliver(sink.cut(messagesFrom(2, 1), 2)[0]!)).rejects.toMatchObject({ code: 'SINK_POISONED' });
    expect(context.observer.attempts).toHaveLength(3);
    await sink.close();
  });

  it('skips MATERIALIZED and ALIAS columns the stream also produces: ClickHouse computes them', async () => {
    const context = ch.context([...stream, { name: 'doubled', type: 'uint64' }, { name: 'shown', type: 'string' }]);
    const sink = batchingSink(
      { sink_class_name: 'ClickHouseBatchingSink', parameters: { host: 's1r1', table: 'computed_rep' } },
      context,
    );
    await sink.init({ fingerprints: undefined, undelivered: [] });
    const [batch] = sink.cut([{ ...messagesFrom(1, 1)[0]!, row: { id: 'a', v: 21, doubled: 5, shown: 'stream' } }], 1);
    await sink.deliver(batch!);
    const rows = await (
      await ch.node('s1r1').query({ query: 'SELECT id, v, doubled, shown FROM eo.computed_rep', format: 'JSONEachRow' })
    ).json();
    expect(rows).toEqual([{ id: 'a', v: 21, doubled: 42, shown: 'a!' }]);
    await sink.close();
  });

  it('checks FixedString length at write: too long gives up before anything is sent', async () => {
    const context = ch.context([
      { name: 'id', type: 'string' },
      { name: 'code', type: 'string' },
    ]);
    const sink = batchingSink(
      { sink_class_name: 'ClickHouseBatchingSink', parameters: { host: 's2r1', table: 'fixed_rep' } },
      context,
    );
    await sink.init({ fingerprints: undefined, undelivered: [] });
    const [ok] = sink.cut([{ ...messagesFrom(1, 1)[0]!, row: { id: 'a', code: 'ab' } }], 1);
    await sink.deliver(ok!);
    const [tooLong] = sink.cut([{ ...messagesFrom(2, 1)[0]!, row: { id: 'b', code: 'abcd' } }], 2);
    await expect(sink.deliver(tooLong!)).rejects.toMatchObject({
      details: { errorClass: 'permanent', attempts: 0 },
      cause: { code: 'SINK_VALUE_INVALID' },
    });
    expect(context.observer.summary()).toEqual(['s2r1:8123#1:ok']);
    const rows = await (
      await ch.node('s2r1').query({ query: 'SELECT id, hex(code) AS code FROM eo.fixed_rep', format: 'JSONEachRow' })
    ).json();
    expect(rows).toEqual([{ id: 'a', code: '616200' }]);
    await sink.close();
  });
});
