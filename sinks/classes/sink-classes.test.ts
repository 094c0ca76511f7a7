import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { SinkContext, SinkMessage } from '../api.ts';
import { messageId } from '../domain/message-id.ts';
import { shardName } from '../domain/shard-name.ts';
import { parseSinkSpec } from '../spec/validate-spec.ts';
import { createSink, SINK_IMPLEMENTATIONS } from './create-sink.ts';
import { groupBySlot, slotRoutingOf } from './slot-routing.ts';

const context: SinkContext = {
  partition: 0,
  observer: {},
  env: {},
  streamSchema: [{ name: 'id', type: 'string' }],
  logger: pino({ level: 'silent' }),
};
const spec = (raw: Record<string, unknown>) =>
  parseSinkSpec({ name: 'unit', ...raw }, { registry: SINK_IMPLEMENTATIONS });
const message = (seq: number, byteSize = 1): SinkMessage => ({
  id: messageId(`1-0-${seq}`),
  row: { id: `m${seq}` },
  byteSize,
});

describe('createSink', () => {
  it('builds each class from its spec without connecting', async () => {
    const kinds = await Promise.all(
      [
        { sink_class_name: 'NYT::NFlow::TClickHouseBatchingSink', parameters: { host: 'h', table: 't' } },
        { sink_class_name: 'ShardedClickHouseBatchingSink', parameters: { shard_hosts: { a: ['h1'] }, table: 't' } },
        { sink_class_name: 'AtLeastOnceClickHouseSink', parameters: { hosts: ['h1', 'h2'], table: 't' } },
        {
          sink_class_name: 'AtMostOnceClickHouseSink',
          parameters: { host: 'h', table: 't', at_most_once_strategy: { enabled: true } },
        },
      ].map(async (raw) => {
        const sink = createSink(spec(raw), context);
        await sink.close();
        return sink.kind;
      }),
    );
    expect(kinds).toEqual(['batching', 'batching', 'at-least-once', 'at-most-once']);
  });

  it('refuses a class missing from the registry', () => {
    const sharded = spec({
      sink_class_name: 'ShardedClickHouseBatchingSink',
      parameters: { shard_hosts: { a: ['h1'] }, table: 't' },
    });
    expect(() => createSink(sharded, context, SINK_IMPLEMENTATIONS.without('ShardedClickHouseBatchingSink'))).toThrow(
      expect.objectContaining({ code: 'SINK_CLASS_NOT_REGISTERED' }),
    );
  });

  it('refuses writes after close', async () => {
    const sink = createSink(
      spec({ sink_class_name: 'AtLeastOnceClickHouseSink', parameters: { host: 'h', table: 't' } }),
      context,
    );
    if (sink.kind !== 'at-least-once') throw new Error('wrong kind');
    await sink.close();
    await expect(sink.writeEpoch(1, [message(1)])).rejects.toMatchObject({ code: 'SINK_CLOSED' });
  });
});

describe('batching cut', () => {
  it('cuts at max_rows_per_batch, flushes the rest at the end and numbers from firstBatchNumber', async () => {
    const sink = createSink(
      spec({
        sink_class_name: 'ClickHouseBatchingSink',
        parameters: { host: 'h', table: 't' },
        dynamic_parameters: { max_rows_per_batch: 2 },
      }),
      context,
    );
    if (sink.kind !== 'batching') throw new Error('wrong kind');
    const batches = sink.cut(
      [1, 2, 3, 4, 5].map((seq) => message(seq)),
      7,
    );
    expect(batches.map((b) => [b.number, b.token, b.messages.length])).toEqual([
      [7, '1-0-2', 2],
      [8, '1-0-4', 2],
      [9, '1-0-5', 1],
    ]);
    expect(
      sink.cut(
        [1, 2, 3, 4, 5].map((seq) => message(seq)),
        7,
      ),
    ).toEqual(batches);
    await sink.close();
  });

  it('uses the reconfigured limits for later cuts', async () => {
    const sink = createSink(
      spec({ sink_class_name: 'ClickHouseBatchingSink', parameters: { host: 'h', table: 't' } }),
      context,
    );
    if (sink.kind !== 'batching') throw new Error('wrong kind');
    await sink.reconfigure({ ...sink.spec.dynamic_parameters, max_rows_per_batch: 1000, max_bytes_per_batch: 10 });
    expect(
      sink
        .cut(
          [1, 2, 3].map((seq) => message(seq, 6)),
          1,
        )
        .map((b) => b.messages.length),
    ).toEqual([1, 1, 1]);
    await sink.close();
  });
});

describe('slot routing', () => {
  it('puts everything in one slot for the unsharded forms', () => {
    const routing = slotRoutingOf(
      spec({ sink_class_name: 'AtLeastOnceClickHouseSink', parameters: { hosts: ['a', 'b'], table: 't' } }).parameters,
    );
    expect(groupBySlot([message(1), message(2)], routing).map((g) => [g.slot, g.messages.length])).toEqual([
      ['(unsharded)', 2],
    ]);
  });

  it('routes by rendezvous and lists shards in canonical order, keeping message order', () => {
    const routing = slotRoutingOf(
      spec({
        sink_class_name: 'AtLeastOnceClickHouseSink',
        parameters: { shard_hosts: { b: ['h2'], a: ['h1'] }, table: 't' },
      }).parameters,
    );
    const messages = Array.from({ length: 40 }, (_, i) => message(i));
    const groups = groupBySlot(messages, routing);
    expect(groups.map((g) => g.slot)).toEqual([shardName('a'), shardName('b')]);
    for (const group of groups) {
      expect(group.messages.every((m) => routing.slotOf(m) === group.slot)).toBe(true);
      expect(group.messages).toEqual(messages.filter((m) => group.messages.includes(m)));
    }
  });
});
