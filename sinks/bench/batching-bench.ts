/**
 * `npm run bench:sink [-- --batches 40 --rows 1000]`: rows per second of
 * `ShardedClickHouseBatchingSink.deliver` against the same batches inserted directly with
 * `@clickhouse/client` (JSONEachRow, keep-alive on: the client's defaults), on the embedded 2x2
 * cluster, direct node ports (the fault proxies are not what is measured). Both sides split each
 * batch by the same rendezvous routing and send the same tokens to twin tables; rounds alternate
 * which side goes first. Prints one JSON document; exits 1 when the ratio is below 0.9.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { harnessClient } from '../../harness/cluster/index.ts';
import { createShardedTable } from '../../harness/clickhouse/index.ts';
import { startEmbeddedCluster } from '../../harness/cluster/embedded/start-embedded.ts';
import type { OutboxBatch, SinkMessage } from '../api.ts';
import { createSink, SINK_IMPLEMENTATIONS } from '../classes/create-sink.ts';
import { slotRoutingOf } from '../classes/slot-routing.ts';
import { messageId } from '../domain/message-id.ts';
import { splitBatchByShard } from '../routing/shard-split.ts';
import { parseSinkSpec } from '../spec/validate-spec.ts';
import { clusterAddressBook, clusterShardHosts, NOMINAL_PORT } from '../testing/cluster-endpoints.ts';
import { captureLogs } from '../testing/log-capture.ts';

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '40' },
    rows: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '3' },
  },
});
const batchCount = Number(values.batches);
const rowsPerBatch = Number(values.rows);
const warmup = Number(values.warmup);
const TARGET = 0.9;

function message(seq: number): SinkMessage {
  const row = { id: `m${seq}`, v: seq, payload: `payload-${seq}-${'x'.repeat(48)}` };
  return { id: messageId(`1-0-${seq}`), row, byteSize: 80 };
}

const cluster = await startEmbeddedCluster({ topology: { shards: 2, replicas: 2, keepers: 1 } });
try {
  const description = cluster.description;
  const admin = description.shards.flatMap((shard) => shard.replicas.map((replica) => harnessClient(replica.http)));
  for (const name of ['via_sink', 'direct'])
    await createShardedTable(admin, {
      database: 'bench',
      name,
      columns: 'id String, v UInt64, payload String',
      orderBy: 'id',
    });
  await Promise.all(admin.map((client) => client.close()));

  const shardHosts = clusterShardHosts(description);
  const spec = parseSinkSpec(
    {
      sink_class_name: 'ShardedClickHouseBatchingSink',
      name: 'bench',
      parameters: { shard_hosts: shardHosts, port: NOMINAL_PORT, database: 'bench', table: 'via_sink_rep' },
      dynamic_parameters: { max_rows_per_batch: Math.min(rowsPerBatch, 2000) },
    },
    { registry: SINK_IMPLEMENTATIONS },
  );
  const sink = createSink(spec, {
    partition: 0,
    observer: {},
    env: {},
    streamSchema: [
      { name: 'id', type: 'string' },
      { name: 'v', type: 'uint64' },
      { name: 'payload', type: 'string' },
    ],
    resolveEndpoint: clusterAddressBook(description, 'direct_http'),
    logger: captureLogs('error').logger,
  });
  if (sink.kind !== 'batching') throw new Error('expected a batching sink');
  await sink.init({ fingerprints: undefined, undelivered: [] });

  // The direct side: one default client per shard's first replica, like the sink's starting endpoints.
  const direct = new Map<string, ClickHouseClient>(
    description.shards.map((shard) => [
      shard.name,
      createClient({ url: shard.replicas[0]?.direct_http ?? '', request_timeout: 60_000 }),
    ]),
  );
  const routing = slotRoutingOf(spec.parameters);
  const insertDirect = async (batch: OutboxBatch) => {
    if (!routing.router) throw new Error('sharded routing expected');
    for (const part of splitBatchByShard({ ...batch, byteSize: 0 }, routing.router, routing.keyOf)) {
      await direct.get(part.shard)?.insert({
        table: 'bench.direct_rep',
        values: part.messages.map((m) => m.row),
        format: 'JSONEachRow',
        clickhouse_settings: { insert_deduplication_token: part.token },
      });
    }
  };

  const all = Array.from({ length: (batchCount + warmup) * rowsPerBatch }, (_, i) => message(i + 1));
  const batches = sink.cut(all, 1);
  const timings = { sink: [] as number[], direct: [] as number[] };
  // Client-side CPU per side (user + system of this process while that side runs): the server's
  // latency dominates wall time, so this shows what the sink itself costs.
  const cpu = { sink: 0, direct: 0 };
  for (const [round, batch] of batches.entries()) {
    const sides: Array<['sink' | 'direct', () => Promise<void>]> = [
      ['sink', () => sink.deliver(batch)],
      ['direct', () => insertDirect(batch)],
    ];
    if (round % 2 === 1) sides.reverse();
    for (const [side, run] of sides) {
      const start = performance.now();
      const cpuStart = process.cpuUsage();
      await run();
      if (round < warmup) continue;
      timings[side].push(performance.now() - start);
      const used = process.cpuUsage(cpuStart);
      cpu[side] += (used.user + used.system) / 1000;
    }
  }
  await sink.close();
  await Promise.all([...direct.values()].map((client) => client.close()));

  const total = (ms: number[]) => ms.reduce((sum, value) => sum + value, 0);
  const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)] ?? 0;
  const rowsMeasured = batchCount * rowsPerBatch;
  const rate = (ms: number[]) => Math.round(rowsMeasured / (total(ms) / 1000));
  const ratio = rate(timings.sink) / rate(timings.direct);
  console.log(
    JSON.stringify(
      {
        batches: batchCount,
        rows_per_batch: rowsPerBatch,
        warmup_batches: warmup,
        sink_rows_per_s: rate(timings.sink),
        direct_rows_per_s: rate(timings.direct),
        ratio: Number(ratio.toFixed(3)),
        sink_median_batch_ms: Number(median(timings.sink).toFixed(2)),
        direct_median_batch_ms: Number(median(timings.direct).toFixed(2)),
        sink_client_cpu_ms_per_batch: Number((cpu.sink / batchCount).toFixed(2)),
        direct_client_cpu_ms_per_batch: Number((cpu.direct / batchCount).toFixed(2)),
        target: TARGET,
        meets_target: ratio >= TARGET,
      },
      null,
      2,
    ),
  );
  process.exitCode = ratio >= TARGET ? 0 : 1;
} finally {
  await cluster.down();
}
