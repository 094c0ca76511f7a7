import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShardedTable } from '../../harness/clickhouse/index.ts';
import type { AtLeastOnceSink, AtMostOnceSink, SinkContext } from '../api.ts';
import { messageId } from '../domain/message-id.ts';
import { expectedShard, messagesFrom, SinkTestCluster } from '../testing/sink-cluster.ts';
import { createSink } from './create-sink.ts';

// At-least-once and both at-most-once modes on the embedded 2x2 cluster, plus a RowBinary round
// trip of every supported type through the real server.
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
    ...['alo', 'amo', 'amo_retry', 'amo_slow', 'amoq', 'checked'].map((name) =>
      createShardedTable(clients, {
        database: 'nb',
        name,
        columns: `id String, v UInt64${name === 'checked' ? ', CONSTRAINT small CHECK v < 1000' : ''}`,
        orderBy: 'id',
      }),
    ),
    createShardedTable(clients, {
      database: 'nb',
      name: 'types',
      columns:
        'id String, i8 Int8, i16 Int16, i32 Int32, i64 Int64, u8 UInt8, u16 UInt16, u32 UInt32, u64 UInt64, f32 Float32, f64 Float64, ' +
        "b Bool, d Date, dt DateTime, dtz DateTime('Asia/Tokyo'), fs FixedString(4), lc LowCardinality(String), n Nullable(Int32), ln LowCardinality(Nullable(String)), raw String, untouched UInt8 DEFAULT 42",
      orderBy: 'id',
    }),
  ]);
});

afterAll(async () => {
  await ch?.down();
});

function atLeastOnce(table: string, context: SinkContext, parameters: Record<string, unknown>): AtLeastOnceSink {
  const sink = createSink(
    ch.spec({ sink_class_name: 'AtLeastOnceClickHouseSink', parameters: { ...parameters, table } }, 'nb'),
    context,
  );
  if (sink.kind !== 'at-least-once') throw new Error(`expected at-least-once, got ${sink.kind}`);
  return sink;
}

function atMostOnce(
  table: string,
  context: SinkContext,
  queue: boolean,
  dynamic: Record<string, unknown> = {},
  hosts: Record<string, unknown> = { host: 's1r1' },
): AtMostOnceSink {
  const spec = ch.spec(
    {
      sink_class_name: 'AtMostOnceClickHouseSink',
      parameters: { ...hosts, table, at_most_once_strategy: { enabled: queue } },
      dynamic_parameters: { retry_backoff: '50ms', ...dynamic },
    },
    'nb',
  );
  const sink = createSink(spec, context);
  if (sink.kind !== 'at-most-once') throw new Error(`expected at-most-once, got ${sink.kind}`);
  return sink;
}

describe('AtLeastOnceClickHouseSink', () => {
  it('writes the epoch synchronously, one INSERT per shard on the rendezvous shard, without a dedup token', async () => {
    const context = ch.context(stream);
    const sink = atLeastOnce('alo_rep', context, { shard_hosts: ch.shardHosts });
    const messages = messagesFrom(1, 60);
    await sink.writeEpoch(7, messages);
    for (const shard of ['s1', 's2']) {
      const expected = messages
        .filter((m) => expectedShard(m, ['s1', 's2']) === shard)
        .map((m) => m.row.id)
        .sort();
      for (const node of ch.shardHosts[shard] ?? []) expect(await ch.idsOn(node, 'nb.alo_rep')).toEqual(expected);
    }
    expect(context.observer.attempts.map(({ attempt }) => [attempt.batch, attempt.shard, attempt.dedupToken])).toEqual([
      [7, 's1', undefined],
      [7, 's2', undefined],
    ]);
    expect(await ch.queryLogOf('s1r1', context.observer.attempts[0]?.attempt.queryId ?? '')).toMatchObject({
      type: 'QueryFinish',
      token: '',
    });
    await sink.close();
  });

  it('writes every supported type exactly as the stream gave it (RowBinary round trip)', async () => {
    const columns = [
      'i8',
      'i16',
      'i32',
      'i64',
      'u8',
      'u16',
      'u32',
      'u64',
      'f32',
      'f64',
      'b',
      'd',
      'dt',
      'dtz',
      'fs',
      'lc',
      'n',
      'ln',
      'raw',
    ];
    const types = [
      'int8',
      'int16',
      'int32',
      'int64',
      'uint8',
      'uint16',
      'uint32',
      'uint64',
      'float',
      'double',
      'boolean',
      'date',
      'datetime',
      'datetime',
      'string',
      'utf8',
      'optional<int32>',
      'optional<string>',
      'string',
    ];
    const context = ch.context([
      { name: 'id', type: 'string' },
      ...columns.map((name, i) => ({ name, type: types[i] ?? '' })),
    ]);
    const sink = atLeastOnce('types_rep', context, { host: 's2r2' });
    const row = {
      id: 'all',
      i8: -128,
      i16: -32768,
      i32: -2147483648,
      i64: -9223372036854775808n,
      u8: 255,
      u16: 65535,
      u32: 4294967295,
      u64: 18446744073709551615n,
      f32: 1.5,
      f64: -0.1,
      b: true,
      d: new Date('2024-02-29T23:00:00Z'),
      dt: 1_700_000_000,
      dtz: new Date(1_700_000_000_000),
      fs: 'ab',
      lc: 'héllo',
      n: null,
      ln: 'x',
      raw: new Uint8Array([0, 1, 254, 255]),
    };
    await sink.writeEpoch(1, [{ id: messageId('1-0-1'), row, byteSize: 100 }]);
    const result = await ch.node('s2r2').query({
      query:
        'SELECT toString(i8) i8, toString(i16) i16, toString(i32) i32, toString(i64) i64, toString(u8) u8, toString(u16) u16, toString(u32) u32, toString(u64) u64, ' +
        'toString(f32) f32, toString(f64) f64, toString(b) b, toString(d) d, toUnixTimestamp(dt) dt, toUnixTimestamp(dtz) dtz, hex(fs) fs, lc, toString(n) n, ln, hex(raw) raw, untouched FROM nb.types_rep',
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual([
      {
        i8: '-128',
        i16: '-32768',
        i32: '-2147483648',
        i64: '-9223372036854775808',
        u8: '255',
        u16: '65535',
        u32: '4294967295',
        u64: '18446744073709551615',
        f32: '1.5',
        f64: '-0.1',
        b: 'true',
        d: '2024-02-29',
        dt: 1700000000,
        dtz: 1700000000,
        fs: '61620000',
        lc: 'héllo',
        n: null,
        ln: 'x',
        raw: '0001FEFF',
        untouched: 42,
      },
    ]);
    await sink.close();
  });
});

describe('AtMostOnceClickHouseSink, ordered mode', () => {
  it('delivers each row once on its rendezvous shard, one INSERT per shard, without a token', async () => {
    const context = ch.context(stream);
    const sink = atMostOnce('amo_rep', context, false, {}, { shard_hosts: ch.shardHosts });
    const messages = messagesFrom(1, 30);
    expect(await sink.write(messages)).toEqual(messages.map(() => 'delivered'));
    for (const shard of ['s1', 's2']) {
      const expected = messages
        .filter((m) => expectedShard(m, ['s1', 's2']) === shard)
        .map((m) => m.row.id)
        .sort();
      for (const node of ch.shardHosts[shard] ?? []) expect(await ch.idsOn(node, 'nb.amo_rep')).toEqual(expected);
    }
    // `batch` is the seq of the INSERT's first message.
    const firstSeq = (shard: string) =>
      Number(messages.find((m) => expectedShard(m, ['s1', 's2']) === shard)?.id.split('-')[2]);
    expect(context.observer.attempts.map(({ attempt }) => [attempt.batch, attempt.shard, attempt.dedupToken])).toEqual([
      [firstSeq('s1'), 's1', undefined],
      [firstSeq('s2'), 's2', undefined],
    ]);
    await sink.close();
  });

  it('delivers in order and retries a connection refused before the INSERT started', async () => {
    const context = ch.context(stream);
    const sink = atMostOnce('amo_retry_rep', context, false);
    expect(await sink.write(messagesFrom(1, 3))).toEqual(['delivered', 'delivered', 'delivered']);
    await ch.setReachable('s1r1', false);
    const writing = sink.write(messagesFrom(4, 2));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await ch.setReachable('s1r1', true);
    expect(await writing).toEqual(['delivered', 'delivered']);
    const outcomes = context.observer.attempts
      .slice(1)
      .map((a) => `${a.result?.outcome}:${a.result?.error?.code ?? ''}`);
    expect(outcomes.at(-1)).toBe('ok:');
    expect(outcomes.slice(0, -1).length).toBeGreaterThan(0);
    expect(outcomes.slice(0, -1).every((o) => o === 'failed:ECONNREFUSED')).toBe(true);
    expect(await ch.idsOn('s1r1', 'nb.amo_retry_rep')).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    await sink.close();
  });

  it('acks with error once the INSERT started and failed, never re-inserting, and keeps going', async () => {
    const context = ch.context(stream);
    const sink = atMostOnce('checked_rep', context, false);
    const [bad, good] = [{ ...messagesFrom(1, 1)[0]!, row: { id: 'big', v: 5000 } }, messagesFrom(2, 1)[0]!];
    expect(await sink.write([bad])).toEqual(['acked-with-error']);
    expect(context.observer.summary()).toEqual(['s1r1:8123#1:failed']);
    expect(await sink.write([good])).toEqual(['delivered']);
    expect(await ch.idsOn('s1r1', 'nb.checked_rep')).toEqual(['m2']);
    await sink.close();
  });

  it('acks with error an INSERT whose outcome is unknown, without a retry', async () => {
    const context = ch.context(stream);
    const sink = atMostOnce('amo_slow_rep', context, false, { write_timeout: '1500ms' });
    expect(await sink.write(messagesFrom(1, 1))).toEqual(['delivered']);
    const slow = await ch.delayAnswers('s1r1', 4000);
    try {
      expect(await sink.write(messagesFrom(2, 2))).toEqual(['acked-with-error', 'acked-with-error']);
    } finally {
      await slow.remove();
    }
    expect(context.observer.summary()).toEqual(['s1r1:8123#1:ok', 's1r1:8123#1:unknown']);
    expect(context.observer.attempts[1]?.sent).toBe(true);
    // The unknown INSERT ran once and was never repeated: its rows are there exactly once.
    expect(await ch.idsOn('s1r1', 'nb.amo_slow_rep')).toEqual(['m1', 'm2', 'm3']);
    await sink.close();
  });
});

describe('AtMostOnceClickHouseSink, queue mode', () => {
  it('drops what exceeds total_queue_bytes_limit with a warning, sends each queued message alone, and follows a new limit', async () => {
    const context = ch.context(stream);
    const sink = atMostOnce('amoq_rep', context, true, { at_most_once_strategy: { total_queue_bytes_limit: 25 } });
    expect(await sink.write(messagesFrom(1, 5))).toEqual(['queued', 'queued', 'dropped', 'dropped', 'dropped']);
    expect(
      context.records.filter((r) => r.msg === 'at-most-once queue is full: message dropped').map((r) => r.message),
    ).toEqual(['1-0-3', '1-0-4', '1-0-5']);
    await sink.drain();
    expect(context.observer.attempts.map((a) => a.attempt.messageIds)).toEqual([['1-0-1'], ['1-0-2']]);
    await sink.reconfigure({
      ...sink.spec.dynamic_parameters,
      at_most_once_strategy: { total_queue_bytes_limit: 100 },
    });
    expect(await sink.write(messagesFrom(6, 5))).toEqual(['queued', 'queued', 'queued', 'queued', 'queued']);
    await sink.drain();
    expect(await ch.idsOn('s1r1', 'nb.amoq_rep')).toEqual(['m1', 'm10', 'm2', 'm6', 'm7', 'm8', 'm9']);
    expect(context.observer.attempts.every((a) => a.result?.outcome === 'ok')).toBe(true);
    await sink.close();
  });
});
