import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessClient, type StartedLocalCluster } from '../../harness/cluster/index.ts';
import { createShardedTable } from '../../harness/clickhouse/index.ts';
import { startEmbeddedCluster } from '../../harness/cluster/embedded/start-embedded.ts';
import { SINK_IMPLEMENTATIONS } from '../classes/create-sink.ts';
import type { SinkWarning } from '../api.ts';
import { shardName } from '../domain/shard-name.ts';
import type { DynamicParameters } from '../spec/sink-spec.ts';
import { parseSinkSpec } from '../spec/validate-spec.ts';
import { captureLogs } from '../testing/log-capture.ts';
import { clusterAddressBook, clusterShardHosts, NOMINAL_PORT } from '../testing/cluster-endpoints.ts';
import { targetFingerprint } from '../topology/target-fingerprint.ts';
import { UNSHARDED_TARGET } from '../topology/topology-guard.ts';
import type { StreamColumn } from '../types/stream-type.ts';
import { WriteSession } from './write-session.ts';
import { sessionWarner } from './session-warnings.ts';

// The session-start metadata checks against real tables on the embedded 2x2 cluster. Drifted
// replicas cannot share a Keeper path (the second replica would refuse the other structure), so
// they are Replicated tables under one name with different paths, created per node.
let cluster: StartedLocalCluster;
const nodes = new Map<string, ClickHouseClient>();
const node = (name: string) => nodes.get(name) as ClickHouseClient;
const stream: StreamColumn[] = [
  { name: 'id', type: 'string' },
  { name: 'v', type: 'uint64' },
];

async function on(names: string[], ddl: (node: string) => string): Promise<void> {
  for (const name of names) await node(name).command({ query: ddl(name) });
}
const replicated = (path: string) => `ReplicatedMergeTree('/clickhouse/tables/${path}', '{replica}')`;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ topology: { shards: 2, replicas: 2, keepers: 1 } });
  for (const shard of cluster.description.shards)
    for (const replica of shard.replicas) nodes.set(replica.name, harnessClient(replica.http));
  const all = [...nodes.keys()];
  await createShardedTable([...nodes.values()], {
    database: 'ws',
    name: 'good',
    columns: 'id String, v UInt64',
    orderBy: 'id',
  });
  await createShardedTable([...nodes.values()], {
    database: 'ws',
    name: 'short',
    columns: 'id String, v UInt64',
    orderBy: 'id',
    settings: 'replicated_deduplication_window_seconds = 60',
  });
  await createShardedTable([...nodes.values()], {
    database: 'ws',
    name: 'reconf',
    columns: 'id String, v UInt64',
    orderBy: 'id',
  });
  await on(['s1r1'], () => 'CREATE TABLE ws.log_t (id String, v UInt64) ENGINE = Log');
  await on(['s1r1', 's1r2'], () => 'CREATE TABLE ws.plain (id String, v UInt64) ENGINE = MergeTree ORDER BY id');
  await on(
    ['s1r1'],
    () =>
      'CREATE TABLE ws.plain_dedup (id String, v UInt64) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100',
  );
  await on(
    ['s1r1'],
    () => `CREATE TABLE ws.mixed (id String, v UInt64) ENGINE = ${replicated('s1/ws/mixed')} ORDER BY id`,
  );
  await on(['s1r2'], () => 'CREATE TABLE ws.mixed (id String, v UInt64) ENGINE = MergeTree ORDER BY id');
  await on(
    ['s1r1'],
    () => `CREATE TABLE ws.drift (id String, v UInt64) ENGINE = ${replicated('s1/ws/drift_a')} ORDER BY id`,
  );
  await on(
    ['s1r2'],
    () => `CREATE TABLE ws.drift (id String, v UInt32) ENGINE = ${replicated('s1/ws/drift_b')} ORDER BY id`,
  );
  await on(
    ['s1r1', 's1r2'],
    (name) => `CREATE TABLE ws.paths (id String, v UInt64) ENGINE = ${replicated(`s1/ws/paths_${name}`)} ORDER BY id`,
  );
  await on(
    all,
    (name) =>
      `CREATE TABLE ws.xdrift (id String, v UInt64${name.startsWith('s2') ? ', extra UInt8' : ''}) ENGINE = ${replicated('{shard}/ws/xdrift')} ORDER BY id`,
  );
  await on(['s1r1'], () => 'CREATE TABLE ws.missing (id String, v UInt64) ENGINE = MergeTree ORDER BY id');
});

afterAll(async () => {
  await Promise.all([...nodes.values()].map((client) => client.close()));
  await cluster?.down();
});

function specFor(table: string, hosts: Record<string, unknown>, dynamic: Record<string, unknown> = {}) {
  return parseSinkSpec(
    {
      sink_class_name: 'AtLeastOnceClickHouseSink',
      name: 'session-test',
      parameters: { ...hosts, port: NOMINAL_PORT, database: 'ws', table },
      dynamic_parameters: dynamic,
    },
    { registry: SINK_IMPLEMENTATIONS },
  );
}

async function open(
  table: string,
  hosts: Record<string, unknown>,
  options: { dynamic?: Record<string, unknown>; stream?: StreamColumn[]; extra?: Record<string, string> } = {},
) {
  const spec = specFor(table, hosts, options.dynamic);
  const { logger, records } = captureLogs();
  const warnings: SinkWarning[] = [];
  const session = await WriteSession.open({
    spec,
    dynamic: spec.dynamic_parameters,
    env: {},
    streamSchema: options.stream ?? stream,
    resolveEndpoint: clusterAddressBook(cluster.description, 'http', options.extra),
    random: Math.random,
    log: logger,
    warn: sessionWarner(logger, (warning) => warnings.push(warning)),
  });
  return { session, records, spec, warnings };
}

const sharded = () => ({ shard_hosts: clusterShardHosts(cluster.description) });
const refusedWith = (code: string, ...fragments: string[]) =>
  expect.objectContaining({
    code,
    message: expect.stringMatching(
      new RegExp(fragments.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*'), 's'),
    ),
  });
const dedupWarnings = (records: Record<string, unknown>[]) =>
  records.filter((record) => 'DedupWindowSetting' in record);

describe('write session start on the embedded cluster', () => {
  it('accepts Replicated replicas with different replica names and fingerprints each shard by its Keeper table', async () => {
    const { session } = await open('good_rep', sharded());
    expect(session.plan.sent.map((column) => column.name)).toEqual(['id', 'v']);
    expect(session.fingerprints.targets.get(shardName('s1'))).toBe(
      targetFingerprint({
        kind: 'keeper',
        zookeeper_name: 'default',
        zookeeper_path: '/clickhouse/tables/s1/ws/good_rep',
      }),
    );
    expect(session.fingerprints.targets.get(shardName('s2'))).toBe(
      targetFingerprint({
        kind: 'keeper',
        zookeeper_name: 'default',
        zookeeper_path: '/clickhouse/tables/s2/ws/good_rep',
      }),
    );
    await session.close();
  });

  it('refuses a Distributed target', async () => {
    await expect(open('good_dist', sharded())).rejects.toEqual(
      refusedWith('SINK_TARGET_INVALID', 'ws.good_dist', "shard 's1'", 'Distributed table'),
    );
  });

  it('refuses a Log table (outside the MergeTree family)', async () => {
    await expect(open('log_t', { host: 's1r1' })).rejects.toEqual(
      refusedWith('SINK_TARGET_INVALID', 'ws.log_t', 'engine Log', 'outside the MergeTree family'),
    );
  });

  it('refuses plain MergeTree on several hosts of a shard', async () => {
    await expect(open('plain', { hosts: ['s1r1', 's1r2'] })).rejects.toEqual(
      refusedWith('SINK_TARGET_INVALID', 'ws.plain', 'MergeTree on 2 hosts', 's1r1, s1r2'),
    );
  });

  it('accepts plain MergeTree on a single host with a warning, without it when non_replicated_deduplication_window is set', async () => {
    const plain = await open('plain', { host: 's1r1' });
    expect(plain.session.fingerprints.targets.get(UNSHARDED_TARGET)).toBe(
      targetFingerprint({ kind: 'endpoint', database: 'ws', table: 'plain', port: NOMINAL_PORT, hosts: ['s1r1'] }),
    );
    expect(plain.records.map((record) => record.msg)).toContainEqual(
      expect.stringMatching(/ws\.plain has engine MergeTree without block deduplication/),
    );
    // The runtime hears the same warning, structured.
    expect(plain.warnings).toContainEqual(
      expect.objectContaining({ kind: 'no-block-dedup', fields: { database: 'ws', table: 'plain' } }),
    );
    await plain.session.close();
    const withWindow = await open('plain_dedup', { host: 's1r1' });
    expect(withWindow.records.map((record) => record.msg)).not.toContainEqual(
      expect.stringMatching(/without block deduplication/),
    );
    expect(withWindow.warnings.map((warning) => warning.kind)).not.toContain('no-block-dedup');
    await withWindow.session.close();
  });

  it('refuses different engines within a shard', async () => {
    await expect(open('mixed', { hosts: ['s1r1', 's1r2'] })).rejects.toEqual(
      refusedWith('SINK_TARGET_MISMATCH', 'ws.mixed', 's1r1:8123 has ReplicatedMergeTree', 's1r2:8123 has MergeTree'),
    );
  });

  it('refuses schema drift between the replicas of a shard, naming the column', async () => {
    await expect(open('drift', { hosts: ['s1r1', 's1r2'] })).rejects.toEqual(
      refusedWith(
        'SINK_TARGET_MISMATCH',
        'ws.drift',
        'schema',
        'column 2',
        's1r1:8123 has `v` UInt64',
        's1r2:8123 has `v` UInt32',
      ),
    );
  });

  it('refuses hosts of a shard whose Replicated tables live under different Keeper paths', async () => {
    await expect(open('paths', { hosts: ['s1r1', 's1r2'] })).rejects.toEqual(
      refusedWith(
        'SINK_TARGET_MISMATCH',
        'not replicas of one table',
        "'/clickhouse/tables/s1/ws/paths_s1r1'",
        "'/clickhouse/tables/s1/ws/paths_s1r2'",
      ),
    );
  });

  it('refuses shards whose schemas differ', async () => {
    await expect(open('xdrift', sharded())).rejects.toEqual(
      refusedWith(
        'SINK_TARGET_MISMATCH',
        'Shards of ws.xdrift disagree on the schema',
        'column 3',
        "s2r1:8123 (shard 's2') has `extra` UInt8",
      ),
    );
  });

  it('refuses a table missing on one endpoint', async () => {
    await expect(open('missing', { hosts: ['s1r1', 's1r2'] })).rejects.toEqual(
      refusedWith('SINK_TARGET_MISSING', 'ws.missing', 's1r2:8123'),
    );
  });

  it('refuses an unreachable endpoint, naming it', async () => {
    const error = await open('good_rep', { hosts: ['s1r1', 'gone'] }, { extra: { gone: 'http://127.0.0.1:1' } }).catch(
      (e: unknown) => e,
    );
    expect(error).toEqual(refusedWith('SINK_ENDPOINT_UNREACHABLE', 'gone:8123', 'ECONNREFUSED'));
  });

  it('refuses a stream that does not fit the table', async () => {
    await expect(open('good_rep', { host: 's1r1' }, { stream: [{ name: 'v', type: 'string' }] })).rejects.toEqual(
      refusedWith('SINK_SCHEMA_INVALID', "column 'v'", 'UInt64'),
    );
  });
});

describe('dedup window vs replay_horizon', () => {
  it('warns with the seed attributes when the server window is shorter, and says which value it compared', async () => {
    const { session, records, warnings } = await open(
      'good_rep',
      { host: 's1r1' },
      { dynamic: { replay_horizon: '1d' } },
    );
    expect(warnings).toContainEqual(
      expect.objectContaining({
        kind: 'dedup-window-short',
        fields: expect.objectContaining({ ReplayHorizon: '1d', DedupWindow: '1h' }),
      }),
    );
    expect(dedupWarnings(records)).toEqual([
      expect.objectContaining({
        level: 40,
        Database: 'ws',
        Table: 'good_rep',
        DedupWindowSetting: 'replicated_deduplication_window_seconds',
        ReplayHorizon: '1d',
        DedupWindow: '1h',
        DedupWindowSource: 'server',
      }),
    ]);
    await session.close();
  });

  it("compares the table's own SETTINGS override when it has one", async () => {
    const quiet = await open('short_rep', sharded(), { dynamic: { replay_horizon: '30s' } });
    expect(dedupWarnings(quiet.records)).toEqual([]);
    await quiet.session.close();
    const { session, records } = await open('short_rep', sharded(), { dynamic: { replay_horizon: '2m' } });
    expect(dedupWarnings(records)).toEqual([
      expect.objectContaining({ DedupWindow: '1m', ReplayHorizon: '2m', DedupWindowSource: 'table' }),
    ]);
    await session.close();
  });

  it('re-runs only the window check on reconfiguration, and re-reads the window when write_timeout changes', async () => {
    const { session, records, spec } = await open('reconf_rep', sharded(), { dynamic: { replay_horizon: '30m' } });
    expect(dedupWarnings(records)).toEqual([]);
    const dynamic = (overrides: Partial<DynamicParameters>): DynamicParameters => ({
      ...spec.dynamic_parameters,
      ...overrides,
    });

    // The metadata check is not repeated: a new column on one shard would refuse a new session.
    // alter_sync = 2: both replicas of s2 have the column before the new session reads them (a
    // sibling still without it reads as a disagreement inside the shard, not between shards).
    await on(['s2r1'], () => 'ALTER TABLE ws.reconf_rep ADD COLUMN extra UInt8 SETTINGS alter_sync = 2');
    await session.reconfigure(dynamic({ replay_horizon: 2 * 3600_000 }));
    expect(dedupWarnings(records)).toEqual([
      expect.objectContaining({
        DedupWindowSetting: 'replicated_deduplication_window_seconds',
        DedupWindow: '1h',
        ReplayHorizon: '2h',
      }),
    ]);

    await session.reconfigure(dynamic({ replay_horizon: 2 * 3600_000, async_insert: true }));
    expect(dedupWarnings(records)).toHaveLength(1);

    await on(
      ['s1r1', 's2r1'],
      () => 'ALTER TABLE ws.reconf_rep MODIFY SETTING replicated_deduplication_window_seconds_for_async_inserts = 600',
    );
    const before = session.client(shardName('s1'), 's1r1');
    await session.reconfigure(dynamic({ replay_horizon: 2 * 3600_000, async_insert: true, write_timeout: 30_000 }));
    expect(session.client(shardName('s1'), 's1r1')).not.toBe(before);
    expect(dedupWarnings(records).at(-1)).toEqual(
      expect.objectContaining({
        DedupWindowSetting: 'replicated_deduplication_window_seconds_for_async_inserts',
        DedupWindow: '10m',
        DedupWindowSource: 'table',
      }),
    );
    await session.close();
    await expect(open('reconf_rep', sharded())).rejects.toEqual(
      refusedWith('SINK_TARGET_MISMATCH', 'Shards of ws.reconf_rep disagree on the schema'),
    );
  });
});
