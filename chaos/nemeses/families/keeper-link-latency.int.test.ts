import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessClient, type StartedLocalCluster } from '../../../harness/cluster/index.ts';
import { createShardedTable } from '../../../harness/clickhouse/index.ts';
import { startEmbeddedCluster } from '../../../harness/cluster/embedded/start-embedded.ts';
import { componentLogger } from '../../../harness/base/index.ts';
import { collectGroundTruth } from '../../../harness/oracle/index.ts';
import type { NemesisContext } from '../fault.ts';
import { aimTarget } from '../fault-plan.ts';
import { RunUndo } from '../run-undo.ts';
import { startedClusterJournal, UndoJournal } from '../undo-journal.ts';
import { KEEPER_LINK_LATENCY } from './keeper-link-latency.ts';

let cluster: StartedLocalCluster;
let context: NemesisContext;
let direct: ClickHouseClient;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ topology: { shards: 1, replicas: 2, keepers: 1 } });
  const journal = new UndoJournal(startedClusterJournal(cluster), cluster);
  context = {
    cluster,
    proxies: journal.deps.proxies,
    undo: new RunUndo(journal, 'keeper-link-latency-test'),
    log: componentLogger('keeper-link-latency-test'),
    database: 'chaos',
  };
  const replicas = cluster.description.shards[0]!.replicas;
  direct = harnessClient(replicas[0]!.direct_http);
  const clients = replicas.map((replica) => harnessClient(replica.direct_http));
  await createShardedTable(clients, { database: 'chaos', name: 'events', columns: 'id String', orderBy: 'id' });
  await Promise.all(clients.map((client) => client.close()));
});

afterAll(async () => {
  await direct?.close();
  await cluster?.down();
});

/** One row into the table on the first replica directly (its Keeper links are the ones the fault slows), under its own query id. */
async function insert(queryId: string): Promise<void> {
  await direct.insert({
    table: 'chaos.events_rep',
    values: [{ id: queryId }],
    format: 'JSONEachRow',
    query_id: queryId,
  });
}

/** The Keeper answers the replica logged for a query (op and µs waited), to say what the engine recorded when the test fails. */
async function keeperAnswers(queryId: string): Promise<string> {
  try {
    const result = await direct.query({
      query: `SELECT op_num, duration_microseconds FROM system.zookeeper_log WHERE query_id = {id:String} AND type = 'Response'`,
      query_params: { id: queryId },
      format: 'JSONEachRow',
    });
    return JSON.stringify(await result.json());
  } catch (error) {
    return String(error);
  }
}

describe('keeper_link_latency on a real INSERT', () => {
  it("raises the aimed INSERT's own Keeper wait (zookeeper_log) by at least the latency; an INSERT without it waits far less", async () => {
    const ms = 300;
    const control = `control-${Date.now()}`;
    await insert(control);
    const target = aimTarget(cluster.description, new URL(cluster.description.shards[0]!.replicas[0]!.http).host)!;
    const fault = KEEPER_LINK_LATENCY.aim(target, { ms, jitter: 0 });
    const window = await fault.apply(context);
    const aimed = `aimed-${Date.now()}`;
    try {
      await insert(aimed);
    } finally {
      await fault.heal(context, window);
    }
    const truth = await collectGroundTruth(cluster.description, { database: 'chaos', table: 'events' });
    const waitOf = (queryId: string) => truth.serverInserts.find((each) => each.queryId === queryId)?.keeperWaitMs;
    const recorded = `control ${await keeperAnswers(control)}, aimed ${await keeperAnswers(aimed)}`;
    // Each of the aimed INSERT's Keeper answers comes the latency late; the control's slowest one does not come near it.
    expect(waitOf(aimed), recorded).toBeGreaterThanOrEqual(ms);
    expect(waitOf(control), recorded).toBeLessThan(ms);
    // The server names the endpoint each request went to: the faulted proxy's own listen address.
    const [proxy] = window.targets;
    const listen = window.links?.listens?.[proxy ?? ''];
    expect(listen, JSON.stringify(window.links)).toMatch(/:\d+$/);
    const byLink = truth.serverInserts.find((each) => each.queryId === aimed)?.keeperWaitsByLink ?? {};
    expect(byLink[listen ?? ''], JSON.stringify(byLink)).toBeGreaterThanOrEqual(ms);
  });
});
