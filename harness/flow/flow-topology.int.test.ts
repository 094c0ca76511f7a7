import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SINK_IMPLEMENTATIONS } from '../../sinks/classes/create-sink.ts';
import { parseSinkSpec } from '../../sinks/index.ts';
import { routingFingerprint } from '../../sinks/topology/routing-fingerprint.ts';
import { routingLayoutOf } from '../../sinks/topology/spec-topology.ts';
import { targetFingerprint } from '../../sinks/topology/target-fingerprint.ts';
import { eventsOfType, type Stamped } from './history/index.ts';
import { sourceConfig } from './source/source-config.ts';
import type { FlowSupervisor } from './supervisor.ts';
import { DATABASE, exactlyOnceProblems, FlowTestCluster, rendezvousShard, SPEC_PORT } from './testing/flow-cluster.ts';
import { WorkerExitedError, WorkerRefusedError } from './worker-errors.ts';

// The topology guard and the refusals of bad input, with the REAL sinks on the embedded cluster.
// A backlog of undelivered batches is made either by a worker that crashes at `before-insert` or
// by running epochs with delivery paused; nothing reaches ClickHouse until a drain.

const source = sourceConfig({ seed: 4242, partitions: 2, messagesPerEpoch: 20, keySpace: 8 });
let cluster: FlowTestCluster;
beforeAll(async () => {
  cluster = await FlowTestCluster.start();
});
afterAll(async () => {
  await cluster?.down();
});

type Hosts = Record<string, unknown>;
const spec = (sink_class_name: string, name: string, table: string, hosts: Hosts, dynamic: Hosts = {}) => ({
  sink_class_name,
  name,
  parameters: { ...hosts, port: SPEC_PORT, database: DATABASE, table },
  dynamic_parameters: { max_rows_per_batch: 8, retry_backoff: '100ms', ...dynamic },
});
const unsharded = (name: string, table: string, hosts: Hosts = { hosts: ['s1r1', 's1r2'] }) =>
  spec('ClickHouseBatchingSink', name, table, hosts);
const sharded = (name: string, table: string, hosts: Hosts) =>
  spec('ShardedClickHouseBatchingSink', name, table, hosts);

const routingRefusal = (count: number, persisted: string, current: string, bound: string) =>
  [
    `Refusing to start the ClickHouse sink: the shard topology changed while ${count} batch(es) are still undelivered; replaying them under the new topology would duplicate or drop rows. Restore the previous shard_hosts / sharding_key_columns, let the pipeline drain to completion, then apply the change`,
    `    persisted_topology_fingerprint = ${persisted}`,
    `    spec_topology_fingerprint      = ${current}`,
    `    oldest_undelivered_batch_bound = ${bound}`,
  ].join('\n');
const specRouting = (raw: unknown) =>
  routingFingerprint(routingLayoutOf(parseSinkSpec(raw, { registry: SINK_IMPLEMENTATIONS }).parameters));

/** Runs `epochs` epochs with delivery paused and stops: the partitions keep 3 undelivered batches per epoch. */
async function backlog(supervisor: FlowSupervisor, raw: unknown, partitions = [0], epochs = 1): Promise<void> {
  const worker = await supervisor.launch({ spec: raw, partitions, deliveryPaused: true });
  await worker.runEpochs(epochs);
  await worker.stop();
}

const lastOf = <T extends Stamped>(events: readonly T[], partition: number): T | undefined =>
  events.filter((event) => 'partition' in event && event.partition === partition).at(-1);

async function rowsIn(table: string): Promise<number> {
  let total = 0;
  for (const { counts } of await cluster.counts(table)) for (const n of counts.values()) total += n;
  return total;
}

describe('topology guard with the real batching sinks', () => {
  it('host → shard_hosts migration: a drained partition applies it at once, one with undelivered batches refuses on every start with the seed’s message and inserts nothing, until restore + drain', async () => {
    const table = await cluster.createTable('migrate', source);
    const before = unsharded('migrate', table);
    const after = sharded('migrate', table, { shard_hosts: cluster.shardHosts });
    const supervisor = cluster.supervisor(source, 'migrate');
    // Partition 1 dies at its first insert: its committed batches stay undelivered.
    const crashing = await supervisor.launch({ spec: before, crash: { point: 'before-insert', partition: 1 } });
    await crashing.runEpochs(2).catch((error: unknown) => expect(error).toBeInstanceOf(WorkerExitedError));
    await crashing.exited;
    const drainer = await supervisor.launch({ spec: before, partitions: [0] });
    await drainer.drain();
    await drainer.stop();
    const rowsBeforeMigration = await rowsIn(table);

    const migrating = await supervisor.launch({ spec: after });
    expect(migrating.partitions.map((status) => [status.partition, status.state])).toEqual([
      [0, 'running'],
      [1, 'refused'],
    ]);
    let events = supervisor.readHistory().events;
    const snapshot = lastOf(eventsOfType(events, 'state-snapshot'), 1);
    const applied = lastOf(eventsOfType(events, 'partition-started'), 0);
    expect(snapshot?.undelivered.length).toBeGreaterThan(0);
    const expected = routingRefusal(
      snapshot?.undelivered.length ?? 0,
      'unsharded',
      applied?.fingerprints?.routing ?? '?',
      snapshot?.undelivered[0]?.token ?? '?',
    );
    expect(expected).toMatch(/oldest_undelivered_batch_bound = 1-1-7$/);
    expect(migrating.partitions[1]?.reason).toBe(expected);
    expect(lastOf(eventsOfType(events, 'partition-refused'), 1)).toMatchObject({
      code: 'SINK_TOPOLOGY_CHANGED',
      message: expected,
      sinkClass: 'ShardedClickHouseBatchingSink',
    });
    const outcomes = await migrating.runEpochs(1);
    expect(outcomes[0]?.[0]?.status).toBe('committed');
    expect(outcomes[1]).toEqual([{ status: 'not-running', reason: expected }]);
    await expect(migrating.drain([1])).rejects.toMatchObject({ code: 'FLOW_PARTITION_REFUSED' });
    await migrating.drain([0]);
    await migrating.stop();
    events = supervisor.readHistory().events;
    expect(
      eventsOfType(events, 'insert-invoke').filter((event) => event.writer === migrating.id && event.partition === 1),
    ).toEqual([]);
    expect(await rowsIn(table)).toBe(rowsBeforeMigration + 2 * 20);

    const again = await supervisor.launch({ spec: after, partitions: [1] });
    expect(again.partitions[0]).toMatchObject({ state: 'refused', reason: expected });
    await again.stop();

    const restored = await supervisor.launch({ spec: before, partitions: [1] });
    await restored.drain();
    await restored.stop();
    const migrated = await supervisor.launch({ spec: after, partitions: [1] });
    expect(migrated.partitions[0]).toMatchObject({ state: 'running', sinkClass: 'ShardedClickHouseBatchingSink' });
    await migrated.runEpochs(1);
    await migrated.drain();
    await migrated.stop();

    const { events: all } = await supervisor.close();
    const classOf = new Map(
      eventsOfType(all, 'epoch-commit').flatMap((commit) =>
        commit.messageIds.map((id) => [id, commit.sinkClass] as const),
      ),
    );
    const expectedShard = (id: string) =>
      classOf.get(id) === 'ClickHouseBatchingSink' ? 's1' : rendezvousShard(source, id, ['s1', 's2'], []);
    const commits = eventsOfType(all, 'epoch-commit');
    expect(new Set(commits.map((commit) => `${commit.partition}:${commit.sinkClass}`))).toEqual(
      new Set([
        '0:ClickHouseBatchingSink',
        '1:ClickHouseBatchingSink',
        '0:ShardedClickHouseBatchingSink',
        '1:ShardedClickHouseBatchingSink',
      ]),
    );
    expect(classOf.size).toBe(commits.length * 20);
    expect(exactlyOnceProblems(await cluster.counts(table), [...classOf.keys()], expectedShard)).toEqual([]);
  });

  const shardHosts = () => cluster.shardHosts;
  it.each([
    {
      change: 'a shard added',
      from: () => ({ shard_hosts: { s1: shardHosts().s1 } }),
      to: () => ({ shard_hosts: shardHosts() }),
    },
    {
      change: 'a shard removed',
      from: () => ({ shard_hosts: shardHosts() }),
      to: () => ({ shard_hosts: { s1: shardHosts().s1 } }),
    },
    {
      change: 'a shard renamed',
      from: () => ({ shard_hosts: shardHosts() }),
      to: () => ({ shard_hosts: { a: shardHosts().s1, s2: shardHosts().s2 } }),
    },
    {
      change: 'sharding_key_columns changed',
      from: () => ({ shard_hosts: shardHosts() }),
      to: () => ({ shard_hosts: shardHosts(), sharding_key_columns: ['key'] }),
    },
  ])(
    'refuses $change with undelivered batches, with the seed’s message and no insert',
    async ({ change, from, to }) => {
      const name = `guard_${change.split(' ').at(-1)}_${change.length}`;
      const table = await cluster.createTable(name, source);
      const supervisor = cluster.supervisor(source, name);
      await backlog(supervisor, sharded(name, table, from()));
      const changedSpec = sharded(name, table, to());
      const refused = await supervisor.launch({ spec: changedSpec, partitions: [0] });
      const persisted =
        eventsOfType(supervisor.readHistory().events, 'partition-started')[0]?.fingerprints?.routing ?? '?';
      expect(persisted).toMatch(/^[0-9a-f]{16}$/);
      expect(refused.partitions[0]).toMatchObject({
        state: 'refused',
        code: 'SINK_TOPOLOGY_CHANGED',
        reason: routingRefusal(3, persisted, specRouting(changedSpec), '1-0-7'),
      });
      expect(await refused.runEpochs(1)).toEqual({
        0: [{ status: 'not-running', reason: refused.partitions[0]?.reason }],
      });
      await refused.stop();
      const { events } = await supervisor.close();
      expect(eventsOfType(events, 'insert-invoke')).toEqual([]);
      expect(await rowsIn(table)).toBe(0);
    },
  );

  it('refuses a host list that points at another Keeper table, but accepts one naming replicas of the same table and replays the backlog there', async () => {
    const table = await cluster.createTable('hostlist', source);
    const supervisor = cluster.supervisor(source, 'hostlist');
    await backlog(supervisor, unsharded('hostlist', table), [0, 1]);

    const elsewhere = await supervisor.launch({
      spec: unsharded('hostlist', table, { hosts: ['s2r1', 's2r2'] }),
      partitions: [0],
    });
    const persisted = eventsOfType(supervisor.readHistory().events, 'partition-started')[0]?.fingerprints?.targets[
      '(unsharded)'
    ];
    const spec2 = targetFingerprint({
      kind: 'keeper',
      zookeeper_name: 'default',
      zookeeper_path: `/clickhouse/tables/s2/${DATABASE}/${table}`,
    });
    expect(elsewhere.partitions[0]?.reason).toBe(
      [
        'Refusing to start the ClickHouse sink: the target table changed while 3 batch(es) are still undelivered; replaying them into a target that cannot be proven to be the same table would duplicate or drop rows. Restore the previous endpoint (database, table, port and hosts, or the same Keeper table), let the pipeline drain to completion, then apply the change',
        `    persisted_target_fingerprint   = ${persisted}`,
        `    spec_target_fingerprint        = ${spec2}`,
        '    oldest_undelivered_batch_bound = 1-0-7',
      ].join('\n'),
    );
    await elsewhere.stop();
    expect(await rowsIn(table)).toBe(0);

    // Same Keeper table through another host list (and a dynamic change): allowed despite the backlog.
    const sameTable = await supervisor.launch({
      spec: spec('ClickHouseBatchingSink', 'hostlist', table, { host: 's1r2' }, { max_rows_per_batch: 5 }),
    });
    expect(sameTable.partitions.map((status) => status.state)).toEqual(['running', 'running']);
    await sameTable.drain();
    await sameTable.stop();
    const { events } = await supervisor.close();
    // The backlog goes out as it was cut and persisted, whatever max_rows_per_batch says now.
    expect(eventsOfType(events, 'delivered').map((event) => `${event.partition}:${event.token}`)).toEqual(
      expect.arrayContaining(['0:1-0-7', '0:1-0-15', '0:1-0-19', '1:1-1-7', '1:1-1-15', '1:1-1-19']),
    );
    const ids = eventsOfType(events, 'epoch-commit').flatMap((commit) => commit.messageIds);
    expect(exactlyOnceProblems(await cluster.counts(table), ids, () => 's1')).toEqual([]);
  });
});

describe('bad input is refused before any state changes', () => {
  const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

  it('a spec naming a class the worker’s registry lacks is refused before the store is read', async () => {
    const table = await cluster.createTable('older_binary', source);
    const supervisor = cluster.supervisor(source, 'older');
    await backlog(supervisor, sharded('older_binary', table, { shard_hosts: cluster.shardHosts }));
    const before = digest(supervisor.storePath);
    const launch = supervisor.launch({
      spec: sharded('older_binary', table, { shard_hosts: cluster.shardHosts }),
      without: ['ShardedClickHouseBatchingSink'],
    });
    await expect(launch).rejects.toBeInstanceOf(WorkerRefusedError);
    await expect(launch).rejects.toMatchObject({
      stage: 'spec',
      refusalCode: 'SINK_SPEC_INVALID',
      message: expect.stringMatching(
        /'ShardedClickHouseBatchingSink' is not in this binary's sink registry.*\(rule: class-not-registered\)/s,
      ),
    });
    expect(digest(supervisor.storePath)).toBe(before);
    expect(existsSync(`${supervisor.storePath}-wal`)).toBe(false);
    await supervisor.close();
  });

  it.each([
    {
      kind: 'corrupt',
      code: 'FLOW_STATE_NOT_SQLITE',
      write: (path: string) => writeFileSync(path, Buffer.alloc(8192, 0x5a)),
    },
    {
      kind: 'foreign',
      code: 'FLOW_STATE_FOREIGN',
      write: (path: string) => {
        const db = new Database(path);
        db.exec('CREATE TABLE jobs (id INTEGER PRIMARY KEY)');
        db.close();
      },
    },
  ])('a $kind state file is refused with $code and left untouched', async ({ kind, code, write }) => {
    const supervisor = cluster.supervisor(source, kind);
    write(supervisor.storePath);
    const before = digest(supervisor.storePath);
    const launch = supervisor.launch({ spec: unsharded(`bad_${kind}`, 'unused_rep') });
    await expect(launch).rejects.toMatchObject({
      stage: 'store',
      refusalCode: code,
      message: expect.stringMatching(/left untouched/),
    });
    expect(digest(supervisor.storePath)).toBe(before);
    await supervisor.close();
  });
});
