import { describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { type GroundTruth, layoutKey } from '../../harness/oracle/index.ts';
import type { RawSinkSpec } from '../arbitraries/index.ts';
import type { AttemptRecord } from '../checkers/index.ts';
import { expectedShardsOf } from './expected-shard.ts';

const description = {
  backend: 'embedded',
  keepers: [],
  shards: ['s1', 's2'].map((name, index) => ({
    name,
    replicas: [
      { name: `${name}r1`, http: `http://127.10.${index + 1}.1:8123`, proxies: { client: `${name}r1_client` } },
    ],
  })),
} as unknown as ClusterDescription;

const spec = (keyColumns: string[]): RawSinkSpec => ({
  sink_class_name: 'AtLeastOnceClickHouseSink',
  name: 'events',
  parameters: {
    table: 'events',
    port: 8123,
    shard_hosts: { s1: ['127.10.1.1'], s2: ['127.10.2.1'] },
    ...(keyColumns.length > 0 ? { sharding_key_columns: keyColumns } : {}),
  },
  dynamic_parameters: {},
});

const KEYED = spec(['key']);
const UNKEYED = spec([]);
const periods = [
  { from: 0, spec: KEYED },
  { from: 100, spec: UNKEYED },
];

/** ClickHouse's routing of message `m` under each layout: keyed to s1, unkeyed to s2. */
const truth = {
  serverInserts: [],
  routed: new Map([
    [layoutKey({ shards: ['s1', 's2'], keyColumns: ['key'] }), new Map([['m', 's1']])],
    [layoutKey({ shards: ['s1', 's2'], keyColumns: [] }), new Map([['m', 's2']])],
  ]),
} as unknown as GroundTruth;

const attempt = (startedAt: number, outcome: AttemptRecord['outcome']): AttemptRecord =>
  ({ queryId: `q${startedAt}`, messageIds: ['m'], outcome, startedAt }) as unknown as AttemptRecord;

describe('expectedShardsOf', () => {
  it('names the shard of the routing in force when the INSERT that carried the row started', () => {
    expect(expectedShardsOf(description, periods, [attempt(10, 'ok')], truth)('m')).toEqual(['s1']);
    expect(expectedShardsOf(description, periods, [attempt(110, 'ok')], truth)('m')).toEqual(['s2']);
  });

  it('allows a row re-sent after a spec change on the shard of each routing that carried it', () => {
    const shards = expectedShardsOf(description, periods, [attempt(10, 'ok'), attempt(110, 'ok')], truth);
    expect(shards('m')).toEqual(['s1', 's2']);
  });

  it('ignores an INSERT that failed and the server never finished', () => {
    const shards = expectedShardsOf(description, periods, [attempt(10, 'ok'), attempt(110, 'failed')], truth);
    expect(shards('m')).toEqual(['s1']);
  });

  it('gives a row no INSERT accounts for no expectation', () => {
    expect(expectedShardsOf(description, periods, [], truth)('m')).toBeNull();
  });
});
