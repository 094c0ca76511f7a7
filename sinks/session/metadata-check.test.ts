import { describe, expect, it } from 'vitest';
import { shardName } from '../domain/shard-name.ts';
import { UNSHARDED_TARGET } from '../topology/topology-guard.ts';
import type { TableColumn } from '../types/schema-check.ts';
import type { EndpointMetadata, ReplicaIdentity } from './endpoint-metadata.ts';
import { checkTargetMetadata, type SlotEndpoints } from './metadata-check.ts';

const columns: TableColumn[] = [
  { name: 'id', type: 'String', default_kind: '', default_expression: '' },
  { name: 'v', type: 'UInt64', default_kind: '', default_expression: '' },
  { name: 'd', type: 'UInt8', default_kind: '', default_expression: '' },
];
const server = {
  replicated_deduplication_window_seconds: '3600',
  replicated_deduplication_window_seconds_for_async_inserts: '604800',
  non_replicated_deduplication_window: '0',
};
const stream = [
  { name: 'id', type: 'string' },
  { name: 'v', type: 'uint64' },
];

function replicated(
  host: string,
  path: string,
  overrides: Partial<EndpointMetadata> = {},
  replica: Partial<ReplicaIdentity> = {},
): EndpointMetadata {
  return {
    endpoint: `${host}:8123`,
    table: { engine: 'ReplicatedMergeTree', engine_full: `ReplicatedMergeTree('${path}', '{replica}') ORDER BY id` },
    columns,
    replica: { zookeeper_name: 'default', zookeeper_path: path, replica_name: host, ...replica },
    serverSettings: server,
    ...overrides,
  };
}

function engine(
  host: string,
  name: string,
  engineFull = `${name} ORDER BY id`,
  overrides: Partial<EndpointMetadata> = {},
): EndpointMetadata {
  return {
    endpoint: `${host}:8123`,
    table: { engine: name, engine_full: engineFull },
    columns,
    replica: undefined,
    serverSettings: server,
    ...overrides,
  };
}

function shard(name: string, ...endpoints: EndpointMetadata[]): SlotEndpoints {
  return { slot: shardName(name), hosts: endpoints.map((e) => e.endpoint.split(':')[0] ?? ''), endpoints };
}

const check = (...slots: SlotEndpoints[]) =>
  checkTargetMetadata({ database: 'db', table: 't', slots, streamSchema: stream, shardingKeyColumns: [] });
const refusal = (code: string, ...fragments: string[]) =>
  expect.objectContaining({
    code,
    message: expect.stringMatching(
      new RegExp(fragments.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*'), 's'),
    ),
  });

describe('checkTargetMetadata', () => {
  it('accepts two shards of two replicas each and reports their Keeper identity', () => {
    const checked = check(
      shard('a', replicated('a1', '/t/a'), replicated('a2', '/t/a')),
      shard('b', replicated('b1', '/t/b'), replicated('b2', '/t/b')),
    );
    expect(checked.slots.get(shardName('a'))).toEqual({
      engine: 'replicated',
      keeper: { zookeeper_name: 'default', zookeeper_path: '/t/a' },
    });
    expect(checked.plan.sent.map((c) => c.name)).toEqual(['id', 'v']);
    expect(checked.warnings).toEqual([
      {
        kind: 'column-note',
        message: expect.stringContaining("column 'd' (UInt8) is not written by the stream and has no DEFAULT"),
      },
    ]);
  });

  it('refuses a table missing on one endpoint, naming it', () => {
    expect(() => check(shard('a', replicated('a1', '/t/a'), replicated('a2', '/t/a', { table: undefined })))).toThrow(
      refusal('SINK_TARGET_MISSING', 'db.t', 'a2:8123', "shard 'a'"),
    );
  });

  it('refuses different engines within a shard', () => {
    expect(() => check(shard('a', replicated('a1', '/t/a'), engine('a2', 'MergeTree')))).toThrow(
      refusal('SINK_TARGET_MISMATCH', 'engine', 'a1:8123 has ReplicatedMergeTree', 'a2:8123 has MergeTree'),
    );
  });

  it('refuses schema drift between replicas, naming the column', () => {
    const drifted = columns.map((c) => (c.name === 'v' ? { ...c, type: 'UInt32' } : c));
    expect(() => check(shard('a', replicated('a1', '/t/a'), replicated('a2', '/t/a', { columns: drifted })))).toThrow(
      refusal(
        'SINK_TARGET_MISMATCH',
        "shard 'a'",
        'schema',
        'column 2',
        'a1:8123 has `v` UInt64',
        'a2:8123 has `v` UInt32',
      ),
    );
  });

  it('refuses replicas of different Keeper tables but accepts different replica names', () => {
    expect(() => check(shard('a', replicated('a1', '/t/a'), replicated('a2', '/t/other')))).toThrow(
      refusal('SINK_TARGET_MISMATCH', 'not replicas of one table', "'/t/a'", "'/t/other'"),
    );
    expect(() =>
      check(shard('a', replicated('a1', '/t/a'), replicated('a2', '/t/a', {}, { zookeeper_name: 'aux' }))),
    ).toThrow(refusal('SINK_TARGET_MISMATCH', "zookeeper_name 'aux'"));
    expect(() => check(shard('a', replicated('a1', '/t/a'), replicated('a2', '/t/a', { replica: undefined })))).toThrow(
      refusal('SINK_TARGET_MISMATCH', 'a2:8123', 'system.replicas'),
    );
  });

  it('refuses Distributed and non-MergeTree targets', () => {
    expect(() => check(shard('a', engine('a1', 'Distributed', "Distributed('c', 'db', 't_rep')")))).toThrow(
      refusal('SINK_TARGET_INVALID', 'Distributed'),
    );
    expect(() => check(shard('a', engine('a1', 'Log', 'Log')))).toThrow(
      refusal('SINK_TARGET_INVALID', 'Log', 'outside the MergeTree family'),
    );
  });

  it('refuses plain MergeTree on several hosts of a shard, accepts one host with a warning', () => {
    expect(() => check(shard('a', engine('a1', 'MergeTree'), engine('a2', 'MergeTree')))).toThrow(
      refusal('SINK_TARGET_INVALID', 'MergeTree on 2 hosts', 'a1, a2'),
    );
    const single = check({ slot: UNSHARDED_TARGET, hosts: ['a1'], endpoints: [engine('a1', 'MergeTree')] });
    expect(single.slots.get(UNSHARDED_TARGET)).toEqual({ engine: 'plain' });
    expect(single.warnings[0]).toEqual({
      kind: 'no-block-dedup',
      message: expect.stringMatching(/without block deduplication.*non_replicated_deduplication_window/),
    });
  });

  it('drops the plain MergeTree warning when the table sets non_replicated_deduplication_window', () => {
    const withWindow = check({
      slot: UNSHARDED_TARGET,
      hosts: ['a1'],
      endpoints: [
        engine('a1', 'MergeTree', 'MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100'),
      ],
    });
    expect(withWindow.warnings.filter((w) => w.kind === 'no-block-dedup')).toEqual([]);
  });

  it('refuses shards that disagree on engine or schema', () => {
    expect(() => check(shard('a', replicated('a1', '/t/a')), shard('b', engine('b1', 'MergeTree')))).toThrow(
      refusal('SINK_TARGET_MISMATCH', 'Shards of db.t disagree on the engine'),
    );
    const drifted = [...columns, { name: 'x', type: 'UInt8', default_kind: '', default_expression: '' }];
    expect(() =>
      check(shard('a', replicated('a1', '/t/a')), shard('b', replicated('b1', '/t/b', { columns: drifted }))),
    ).toThrow(
      refusal(
        'SINK_TARGET_MISMATCH',
        'Shards of db.t disagree on the schema',
        'column 4',
        "b1:8123 (shard 'b') has `x` UInt8",
      ),
    );
  });

  it('refuses a stream that does not fit the table', () => {
    expect(() =>
      checkTargetMetadata({
        database: 'db',
        table: 't',
        slots: [shard('a', replicated('a1', '/t/a'))],
        streamSchema: [{ name: 'v', type: 'string' }],
        shardingKeyColumns: [],
      }),
    ).toThrow(refusal('SINK_SCHEMA_INVALID', "column 'v'", 'UInt64'));
  });
});
