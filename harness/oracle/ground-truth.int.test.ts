import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessClient, queryRows, type StartedLocalCluster } from '../cluster/index.ts';
import { distributedTableDdl } from '../clickhouse/ddl.ts';
import { startEmbeddedCluster } from '../cluster/embedded/start-embedded.ts';
import { columnsDdl, DeterministicSource, sourceConfig } from '../flow/index.ts';
import { RendezvousRouter } from '../../sinks/routing/rendezvous-router.ts';
import { routingKeyFor } from '../../sinks/routing/routing-key.ts';
import { shardName } from '../../sinks/domain/shard-name.ts';
import { anomalyKind } from '../../properties/checkers/index.ts';
import { placementChecker } from '../../properties/checkers/placement-checker.ts';
import { replicaConvergenceChecker } from '../../properties/checkers/replica-convergence-checker.ts';
import type { Observations } from '../../properties/checkers/observations.ts';
import { collectGroundTruth } from './ground-truth.ts';
import { layoutKey, type RoutingLayout } from './rendezvous-sql.ts';
import { readReplicaCounts } from './replica-counts.ts';
import { rowForm } from './row-form.ts';

// The oracle on a real 2x2 cluster: every replica read directly, and ClickHouse's own xxHash64
// placing each stored row. Here each replica has a Keeper table of its own, so rows can be
// planted on one replica only: a duplicate on one, a missing row on another, a row on the wrong
// shard — the checkers fed with what the oracle read must flag each, and nothing else.

const DATABASE = 'oracle';
let cluster: StartedLocalCluster;
const clients = new Map<string, ClickHouseClient>();
const source = sourceConfig({ seed: 17, partitions: 1, messagesPerEpoch: 1 });
const messages = new DeterministicSource(source, 0).read(0, 60);
const LAYOUTS: readonly RoutingLayout[] = [
  { shards: ['s1', 's2'], keyColumns: [] },
  { shards: ['s1', 's2'], keyColumns: ['key'] },
  { shards: ['a', 'b', 'c'], keyColumns: [] },
];

const client = (replica: string) => {
  const found = clients.get(replica);
  if (found === undefined) throw new Error(`no client for ${replica}`);
  return found;
};
const insert = (replica: string, ids: readonly (typeof messages)[number][]) =>
  client(replica).insert({
    table: `${DATABASE}.events_rep`,
    values: ids.map((m) => m.row),
    format: 'JSONEachRow',
    clickhouse_settings: { insert_deduplicate: 0 },
  });

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ topology: { shards: 2, replicas: 2, keepers: 1 } });
  for (const replica of cluster.description.shards.flatMap((shard) => shard.replicas))
    clients.set(replica.name, harnessClient(replica.direct_http));
  for (const [name, each] of clients) {
    await each.command({ query: `CREATE DATABASE ${DATABASE}` });
    await each.command({
      query: `CREATE TABLE ${DATABASE}.events_rep (${columnsDdl(source)}) ENGINE = ReplicatedMergeTree('/clickhouse/tables/own_${name}/${DATABASE}/events', 'only') ORDER BY id`,
    });
    await each.command({
      query: distributedTableDdl({ database: DATABASE, name: 'events', columns: '', orderBy: 'id' }),
    });
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([...clients.values()].map((each) => each.close()));
  await cluster?.down();
});

describe('the ground-truth oracle on the real cluster', { timeout: 120_000 }, () => {
  it('routes every stored row exactly as the sinks’ rendezvous router does, by ClickHouse’s own xxHash64', async () => {
    await insert('s1r1', messages);
    const truth = await collectGroundTruth(cluster.description, {
      database: DATABASE,
      table: 'events',
      layouts: LAYOUTS,
    });
    for (const layout of LAYOUTS) {
      const router = new RendezvousRouter(layout.shards.map(shardName));
      const routed = truth.routed.get(layoutKey(layout));
      expect(routed?.size).toBe(messages.length);
      for (const m of messages)
        expect(routed?.get(m.id), `${m.id} under ${layoutKey(layout)}`).toBe(
          router.route(routingKeyFor(m.id, m.row, layout.keyColumns)),
        );
    }
    await Promise.all(
      [...clients.values()].map((each) => each.command({ query: `TRUNCATE TABLE ${DATABASE}.events_rep` })),
    );
  });

  it('reads a duplicate on one replica, a row missing on another and a row on the wrong shard, and the checkers flag each', async () => {
    const layout = LAYOUTS[0] as RoutingLayout;
    const router = new RendezvousRouter(layout.shards.map(shardName));
    const home = (m: (typeof messages)[number]) => router.route(routingKeyFor(m.id, m.row, []));
    const onS1 = messages.filter((m) => home(m) === 's1');
    const onS2 = messages.filter((m) => home(m) === 's2');
    const [duplicated, missing, misplaced] = [onS1[0]!, onS2[0]!, onS1[1]!];
    const rest1 = onS1.filter((m) => m !== misplaced);
    await Promise.all([
      insert('s1r1', rest1),
      insert('s1r2', [...rest1, duplicated]),
      insert('s2r1', [...onS2, misplaced]),
      insert('s2r2', [...onS2.filter((m) => m !== missing), misplaced]),
    ]);

    const truth = await collectGroundTruth(cluster.description, {
      database: DATABASE,
      table: 'events',
      layouts: [layout],
    });
    const routed = truth.routed.get(layoutKey(layout));
    const observations = {
      replicas: truth.replicas,
      viaDistributed: truth.viaDistributed,
      expectedShards: (id: string) => {
        const shard = routed?.get(id);
        return shard === undefined ? null : [shard];
      },
    } as unknown as Observations;
    const diverged = replicaConvergenceChecker(observations).anomalies.filter(
      (a) => anomalyKind(a.category) === 'diverged',
    );
    expect(diverged.map((a) => [a.category, a.examples])).toEqual([
      ['diverged:s1r2', [duplicated.id]],
      ['diverged:s2r2', [missing.id]],
    ]);
    expect(placementChecker(observations).anomalies).toEqual([
      {
        category: 'misplaced',
        count: 2,
        examples: [`${misplaced.id}@s2r1(expected s1)`, `${misplaced.id}@s2r2(expected s1)`],
      },
    ]);
  });

  it('reads every INSERT into the database from query_log with its code, one refused before it started too, and finds its marker', async () => {
    const attempt = (queryId: string, table: string, settings: Record<string, string> = {}) =>
      client('s1r1')
        .insert({
          table,
          values: [messages[0]!.row],
          format: 'JSONEachRow',
          query_id: queryId,
          clickhouse_settings: { insert_deduplicate: 0, ...settings },
        })
        .then(
          () => 'ok',
          (error: { code?: string }) => error.code,
        );
    const runId = `${Date.now()}`;
    expect(await attempt(`ok-${runId}`, `${DATABASE}.events_rep`)).toBe('ok');
    // A quorum no shard can meet fails while it runs; an unknown table, before it starts (no database named).
    expect(await attempt(`quorum-${runId}`, `${DATABASE}.events_rep`, { insert_quorum: '5' })).toBe('285');
    expect(await attempt(`unknown-table-${runId}`, `${DATABASE}.missing_rep`)).toBe('60');
    expect(await attempt(`other-database-${runId}`, `${DATABASE}_other.events_rep`)).toBe('81');
    const truth = await collectGroundTruth(cluster.description, { database: DATABASE, table: 'events' });
    const logged = truth.serverInserts.filter((insert) => insert.queryId.endsWith(runId));
    expect(logged.map((insert) => [insert.queryId, insert.replica, insert.finished, insert.exceptionCode])).toEqual(
      expect.arrayContaining([
        [`ok-${runId}`, 's1r1', true, 0],
        [`quorum-${runId}`, 's1r1', false, 285],
        [`unknown-table-${runId}`, 's1r1', false, 60],
      ]),
    );
    expect(logged).toHaveLength(3);
    expect(truth.logMarkerFound).toEqual(['s1r1', 's1r2', 's2r1', 's2r2']);
  });

  it('keeps query_log whole while ClickHouse’s part-writer failpoint fails every compact part', async () => {
    const insertAs = (queryId: string) =>
      client('s1r1')
        .insert({
          table: `${DATABASE}.events_rep`,
          values: [messages[1]!.row],
          format: 'JSONEachRow',
          query_id: queryId,
        })
        .then(
          () => 'ok',
          (error: { code?: string }) => error.code,
        );
    const runId = `${Date.now()}`;
    expect(await insertAs(`before-${runId}`)).toBe('ok');
    await client('s1r1').command({ query: 'SYSTEM ENABLE FAILPOINT compact_part_writer_fail_in_add_streams' });
    try {
      expect(await insertAs(`during-${runId}`)).toBe('710');
      // Long enough for the log's own flushes (every 500 ms) to run under the failpoint.
      await new Promise((resolve) => setTimeout(resolve, 1500));
    } finally {
      await client('s1r1').command({ query: 'SYSTEM DISABLE FAILPOINT compact_part_writer_fail_in_add_streams' });
    }
    const truth = await collectGroundTruth(cluster.description, { database: DATABASE, table: 'events' });
    const logged = truth.serverInserts.filter((insert) => insert.queryId.endsWith(runId));
    expect(logged.map((insert) => [insert.queryId, insert.exceptionCode]).sort()).toEqual([
      [`before-${runId}`, 0],
      [`during-${runId}`, 710],
    ]);
  });

  it('reads every stored row in the form the source produced it, and a row stored with a cut payload as a second form', async () => {
    await Promise.all(
      [...clients.values()].map((each) => each.command({ query: `TRUNCATE TABLE ${DATABASE}.events_rep` })),
    );
    const [altered] = messages;
    const cut = { ...altered!.row, payload: String(altered!.row.payload).slice(0, -1) };
    await insert('s1r1', messages);
    await client('s1r2').insert({ table: `${DATABASE}.events_rep`, values: [cut], format: 'JSONEachRow' });
    const truth = await collectGroundTruth(cluster.description, { database: DATABASE, table: 'events' });
    for (const m of messages.slice(1)) expect([...(truth.forms.get(m.id) ?? [])], m.id).toEqual([rowForm(m.row)]);
    expect(new Set(truth.forms.get(altered!.id))).toEqual(new Set([rowForm(altered!.row), rowForm(cut)]));
  });

  it("waits only for INSERTs into the run's database: a shared cluster's own INSERTs do not hold the read up", async () => {
    const s1r1 = client('s1r1');
    await s1r1.command({ query: 'CREATE DATABASE busy' });
    for (const table of ['busy.elsewhere', `${DATABASE}.beside`])
      await s1r1.command({ query: `CREATE TABLE ${table} (n UInt64) ENGINE = MergeTree ORDER BY n` });
    // About 10 s on s1r1: one row per block, as sleepEachRow caps the sleep of a block at 3 s.
    const slowInsert = async (table: string) => {
      const queryId = `slow-${table}-${Date.now()}`;
      const done = s1r1
        .command({
          query: `INSERT INTO ${table} SELECT number FROM numbers(40) WHERE sleepEachRow(0.25) = 0`,
          query_id: queryId,
          clickhouse_settings: { max_block_size: '1' },
        })
        .catch(() => undefined);
      for (;;) {
        const [row] = await queryRows<{ c: number }>(
          s1r1,
          `SELECT count() AS c FROM system.processes WHERE query_id = '${queryId}'`,
        );
        if (Number(row?.c) === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return async () => {
        await s1r1.command({ query: `KILL QUERY WHERE query_id = '${queryId}' SYNC` });
        await done;
      };
    };
    const target = { localTable: `${DATABASE}.events_rep` };

    const stopElsewhere = await slowInsert('busy.elsewhere');
    await expect(readReplicaCounts(cluster.description, target, 1)).resolves.toHaveLength(4);
    await stopElsewhere();

    const stopBeside = await slowInsert(`${DATABASE}.beside`);
    await expect(readReplicaCounts(cluster.description, target, 1)).rejects.toThrow(
      `replica s1r1 still runs INSERT queries into ${DATABASE} 1 s after healing`,
    );
    await stopBeside();
  });
});
