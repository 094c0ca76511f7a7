import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShardedTable } from '../../harness/clickhouse/index.ts';
import type { AnySink, SinkMessage } from '../api.ts';
import type { SinkClassName } from '../domain/sink-class-name.ts';
import { SINK_CLASSES } from '../sink-classes.ts';
import { messagesFrom, SinkTestCluster } from '../testing/sink-cluster.ts';
import { createSink } from './create-sink.ts';

// The settings each class's INSERTs ran with, read back from the server: system.query_log logs
// the settings a query changed, so the value in force is the logged one, else the server's
// default (system.settings). For async_insert off and on.
let ch: SinkTestCluster;
const stream = [
  { name: 'id', type: 'string' },
  { name: 'v', type: 'uint64' },
];
const WATCHED = [
  'insert_deduplication_token',
  'async_insert',
  'wait_for_async_insert',
  'async_insert_deduplicate',
  'insert_deduplicate',
] as const;

beforeAll(async () => {
  ch = await SinkTestCluster.start();
  await createShardedTable([...ch.nodes.values()], {
    database: 'wire',
    name: 'rows',
    columns: 'id String, v UInt64',
    orderBy: 'id',
  });
});

afterAll(async () => {
  await ch?.down();
});

async function write(sink: AnySink, messages: SinkMessage[]): Promise<void> {
  switch (sink.kind) {
    case 'batching': {
      await sink.init({ fingerprints: undefined, undelivered: [] });
      for (const batch of sink.cut(messages, 1)) await sink.deliver(batch);
      return;
    }
    case 'at-least-once':
      return sink.writeEpoch(1, messages);
    case 'at-most-once':
      await sink.write(messages);
      return;
  }
}

/** The watched settings a query ran with, as the node it went to logged them. */
async function settingsInForce(node: string, queryId: string): Promise<Record<string, string>> {
  const rows = await ch.untilLogged(node, {
    query:
      "SELECT name, if(mapContains(log.Settings, name), log.Settings[name], s.default) AS value FROM (SELECT Settings FROM system.query_log WHERE query_id = {id:String} AND type = 'QueryFinish') AS log CROSS JOIN (SELECT name, default FROM system.settings WHERE name IN {watched:Array(String)}) AS s",
    query_params: { id: queryId, watched: [...WATCHED] },
  });
  if (rows.length === 0) throw new Error(`${node} did not log the query ${queryId}`);
  return Object.fromEntries(rows.map((row) => [String(row.name), String(row.value)]));
}

/**
 * The seed's table (section 6): the token and async_insert_deduplicate only for the exactly-once
 * classes, async_insert and wait_for_async_insert on with async_insert; async_insert off
 * otherwise (the server's default is on since 26.x); block dedup never turned off.
 */
function owed(sinkClass: SinkClassName, asyncInsert: boolean, token: string | undefined): Record<string, string> {
  const exactlyOnce = SINK_CLASSES[sinkClass].usesDedupToken;
  return {
    insert_deduplication_token: exactlyOnce ? (token ?? '<missing>') : '',
    async_insert: asyncInsert ? '1' : '0',
    wait_for_async_insert: '1',
    async_insert_deduplicate: asyncInsert && exactlyOnce ? '1' : '0',
    insert_deduplicate: '1',
  };
}

const CASES: [SinkClassName, Record<string, unknown>][] = [
  ['ClickHouseBatchingSink', { host: 's1r1' }],
  ['ShardedClickHouseBatchingSink', {}],
  ['AtLeastOnceClickHouseSink', { host: 's1r1' }],
  ['AtMostOnceClickHouseSink', { host: 's1r1' }],
];

describe('settings on the wire, as the server logged them', () => {
  for (const [sinkClass, hosts] of CASES) {
    for (const asyncInsert of [false, true]) {
      it(`${sinkClass}, async_insert ${asyncInsert}`, async () => {
        const context = ch.context(stream);
        const parameters = {
          ...(sinkClass === 'ShardedClickHouseBatchingSink' ? { shard_hosts: ch.shardHosts } : hosts),
          table: 'rows_rep',
        };
        const sink = createSink(
          ch.spec(
            { sink_class_name: sinkClass, parameters, dynamic_parameters: { async_insert: asyncInsert } },
            'wire',
          ),
          context,
        );
        await write(sink, messagesFrom(1, 6));
        const attempts = context.observer.attempts;
        expect(attempts.length).toBeGreaterThan(0);
        for (const { attempt } of attempts) {
          const node = attempt.endpoint.split(':')[0] ?? '';
          expect(await settingsInForce(node, attempt.queryId), attempt.queryId).toEqual(
            owed(sinkClass, asyncInsert, attempt.dedupToken),
          );
        }
        await sink.close();
      });
    }
  }
});
