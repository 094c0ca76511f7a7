import { ClickHouseError, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessClient, queryValue, type StartedLocalCluster } from '../../harness/cluster/index.ts';
import { createShardedTable } from '../../harness/clickhouse/index.ts';
import { startEmbeddedCluster } from '../../harness/cluster/embedded/start-embedded.ts';
import { componentLogger } from '../../harness/base/index.ts';
import { settleCluster } from '../executor/settle-cluster.ts';
import type { NemesisContext } from './fault.ts';
import { RunUndo } from './run-undo.ts';
import { startedClusterJournal, UndoJournal } from './undo-journal.ts';
import { interserverCut, keeperLinkCut, proxyDown } from './proxy-fault.ts';
import { keeperPause, replicaKill, replicaKillReadingLog, replicaPause } from './process-fault.ts';
import { constraintViolated, notEnoughSpace, partWriterFailpoint, tableDetached, tooManyParts } from './table-fault.ts';
import { latency, limitData, resetPeer, timeout } from './toxic-fault.ts';

let cluster: StartedLocalCluster;
let context: NemesisContext;
let journal: UndoJournal;
const proxied = new Map<string, ClickHouseClient>();
const direct = new Map<string, ClickHouseClient>();
const get = (map: Map<string, ClickHouseClient>, name: string) => {
  const client = map.get(name);
  if (!client) throw new Error(`no client for ${name}`);
  return client;
};

let seq = 0;
/** Inserts one fresh row through s1r1's client proxy; returns its id and the error, if any. */
async function insertThroughProxy(timeoutMs = 10_000): Promise<{ id: string; error?: unknown; ms: number }> {
  const id = `row-${seq++}`;
  const client = harnessClient(cluster.description.shards[0]!.replicas[0]!.http, { timeoutMs });
  const started = Date.now();
  try {
    await client.insert({ table: 'chaos.events_rep', values: [{ id }], format: 'JSONEachRow' });
    return { id, ms: Date.now() - started };
  } catch (error) {
    return { id, error, ms: Date.now() - started };
  } finally {
    await client.close();
  }
}

const committed = async (id: string) =>
  Number(await queryValue<string>(get(direct, 's1r1'), `SELECT count() FROM chaos.events_rep WHERE id = '${id}'`));
const errorCode = (error: unknown) =>
  (error as NodeJS.ErrnoException | undefined)?.code ?? (error as Error | undefined)?.message;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ topology: { shards: 1, replicas: 2, keepers: 1 } });
  journal = new UndoJournal(startedClusterJournal(cluster), cluster);
  context = {
    cluster,
    proxies: journal.deps.proxies,
    undo: new RunUndo(journal, 'nemeses-test'),
    log: componentLogger('nemesis-test'),
    database: 'chaos',
  };
  for (const replica of cluster.description.shards.flatMap((s) => s.replicas)) {
    proxied.set(replica.name, harnessClient(replica.http));
    direct.set(replica.name, harnessClient(replica.direct_http));
  }
  await createShardedTable([...direct.values()], {
    database: 'chaos',
    name: 'events',
    columns: 'id String',
    orderBy: 'id',
  });
});

afterAll(async () => {
  await Promise.all([...proxied.values(), ...direct.values()].map((client) => client.close()));
  await cluster?.down();
});

describe('client-link toxics on real ClickHouse HTTP inserts', () => {
  it('no toxic: the insert succeeds', async () => {
    const result = await insertThroughProxy();
    expect(result.error).toBeUndefined();
    expect(await committed(result.id)).toBe(1);
  });

  it('reset_peer downstream: ECONNRESET while the insert commits (the unknown-outcome case)', async () => {
    const fault = resetPeer('s1r1_client');
    const window = await fault.apply(context);
    const result = await insertThroughProxy();
    await fault.heal(context, window);
    expect(errorCode(result.error)).toBe('ECONNRESET');
    expect(await committed(result.id)).toBe(1);
  });

  it('limit_data downstream: the response is cut while the insert commits', async () => {
    const fault = limitData('s1r1_client', 20);
    const window = await fault.apply(context);
    const result = await insertThroughProxy();
    await fault.heal(context, window);
    expect(result.error).toBeDefined();
    expect(result.error).not.toBeInstanceOf(ClickHouseError);
    expect(await committed(result.id)).toBe(1);
  });

  it('timeout downstream: the response never arrives while the insert commits', async () => {
    const fault = timeout('s1r1_client', 1500);
    const window = await fault.apply(context);
    const result = await insertThroughProxy();
    await fault.heal(context, window);
    expect(result.error).toBeDefined();
    expect(result.error).not.toBeInstanceOf(ClickHouseError);
    expect(await committed(result.id)).toBe(1);
  });

  it('timeout upstream: the request stalls, then the connection closes; nothing commits', async () => {
    const fault = timeout('s1r1_client', 1500, 'upstream');
    const window = await fault.apply(context);
    const result = await insertThroughProxy();
    await fault.heal(context, window);
    expect(result.error).toBeDefined();
    expect(result.ms).toBeGreaterThanOrEqual(1400);
    expect(await committed(result.id)).toBe(0);
  });

  it('latency: the insert succeeds, slower by at least the latency less its jitter', async () => {
    const fault = latency('s1r1_client', 300, 40);
    const window = await fault.apply(context);
    const result = await insertThroughProxy();
    await fault.heal(context, window);
    expect(result.error).toBeUndefined();
    expect(window.slowerThanMs).toBe(260);
    expect(result.ms).toBeGreaterThanOrEqual(260);
  });

  it('proxy down: connection refused, nothing committed; heal restores it', async () => {
    const fault = proxyDown(['s1r1_client']);
    const window = await fault.apply(context);
    const result = await insertThroughProxy();
    await fault.heal(context, window);
    expect(errorCode(result.error)).toBe('ECONNREFUSED');
    expect(await committed(result.id)).toBe(0);
    expect((await insertThroughProxy()).error).toBeUndefined();
  });
});

describe('process and link faults verify themselves', () => {
  it('replica kill and pause are verified and healed', async () => {
    for (const fault of [replicaKill('s1r2'), replicaPause('s1r2'), keeperPause('k1')]) {
      const window = await fault.apply(context);
      expect(window.verified, fault.toString()).toBe(true);
      // Only the sinks' kills read the victim's log first; these are timed to a moment.
      expect(window.logBeforeKill, fault.toString()).toBeUndefined();
      await fault.heal(context, window);
      expect(await cluster.memberState(fault.targets[0]!)).toBe('running');
    }
  });

  it('a replica kill keeps what the victim logged of the run’s INSERTs, which its restart wipes', async () => {
    const queryId = `kept-before-kill-${seq++}`;
    await get(direct, 's1r2').insert({
      table: 'chaos.events_rep',
      values: [{ id: queryId }],
      format: 'JSONEachRow',
      query_id: queryId,
    });
    const answeredAt = Date.now();
    const fault = replicaKillReadingLog('s1r2');
    const window = await fault.apply(context);
    await fault.heal(context, window);
    expect(window.logBeforeKill?.askedAt).toBeGreaterThanOrEqual(answeredAt);
    expect(window.logBeforeKill?.inserts).toContainEqual(
      expect.objectContaining({ queryId, replica: 's1r2', finished: true }),
    );
    const restarted = harnessClient(cluster.description.shards[0]!.replicas[1]!.direct_http);
    try {
      await restarted.command({ query: 'SYSTEM FLUSH LOGS' });
      const logged = await queryValue<string>(
        restarted,
        `SELECT count() FROM system.query_log WHERE query_id = '${queryId}'`,
      );
      expect(Number(logged), 'the embedded engine restarts a node with empty system logs').toBe(0);
    } finally {
      await restarted.close();
    }
  });

  it('a Keeper link cut blocks an INSERT on the replica until the heal, or fails it', async () => {
    const fault = keeperLinkCut(['s1r1_keeper_k1'], 's1r1');
    const window = await fault.apply(context);
    const inserting = insertThroughProxy(30_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await fault.heal(context, window);
    const result = await inserting;
    expect(result.error !== undefined || result.ms >= 1400, `the INSERT took ${result.ms} ms and succeeded`).toBe(true);
  });

  it('an interserver cut makes the sibling fail its fetches, witnessed on the sibling', async () => {
    const fault = interserverCut(['s1r1_interserver'], ['s1r2']);
    const window = await fault.apply(context);
    const result = await insertThroughProxy();
    expect(result.error).toBeUndefined();
    await fault.probe(context, window, Date.now() + 30_000);
    expect(window.verified).toBe(true);
    await fault.heal(context, window);
    await get(direct, 's1r2').command({
      query: 'SYSTEM SYNC REPLICA chaos.events_rep',
      clickhouse_settings: { receive_timeout: 60 },
    });
    expect(
      Number(
        await queryValue<string>(get(direct, 's1r2'), `SELECT count() FROM chaos.events_rep WHERE id = '${result.id}'`),
      ),
    ).toBe(1);
  });
});

describe('server errors', () => {
  const replicas = () => cluster.description.shards.flatMap((shard) => shard.replicas);
  it.each([
    { type: 'too_many_parts', build: tooManyParts, code: '252' },
    { type: 'not_enough_space', build: notEnoughSpace, code: '243' },
    { type: 'table_detached', build: tableDetached, code: '60' },
    {
      type: 'constraint_violated',
      build: () => constraintViolated(cluster.description.shards.map((shard) => shard.replicas)),
      code: '469',
    },
    { type: 'part_writer_failpoint', build: partWriterFailpoint, code: '710' },
  ])(
    '$type: every replica refuses INSERTs with code $code until the heal, then takes them',
    async ({ build, code }) => {
      const fault = build(replicas());
      const window = await fault.apply(context);
      const refused = await insertThroughProxy();
      const onSibling = await get(direct, 's1r2')
        .insert({ table: 'chaos.events_rep', values: [{ id: 'sibling' }], format: 'JSONEachRow' })
        .catch((error: unknown) => error);
      await fault.heal(context, window);
      expect(refused.error).toBeInstanceOf(ClickHouseError);
      expect((refused.error as ClickHouseError).code).toBe(code);
      expect((onSibling as ClickHouseError).code).toBe(code);
      // A re-attached table reconnects to Keeper: a moment before it is writable again.
      await settleCluster(cluster, journal, 'chaos');
      expect(await committed(refused.id)).toBe(0);
      const after = await insertThroughProxy();
      expect(after.error).toBeUndefined();
      expect(await committed(after.id)).toBe(1);
      await fault.heal(context, window);
    },
  );
});
