import { describe, expect, it, vi } from 'vitest';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import type { RawSinkSpec } from '../arbitraries/index.ts';
import { SINK_CLASSES } from '../../sinks/index.ts';
import { ObjectReader } from '../../sinks/spec/object-reader.ts';
import { SpecProblems } from '../../sinks/spec/spec-problem.ts';
import { validateHostForms } from '../../sinks/spec/validate-hosts.ts';
import { routingLayouts } from './expected-shard.ts';
import { specTopology } from './spec-topology.ts';
import { topologyKey } from './topology-key.ts';

// A bug in the sinks' own host-form parser, planted: shards in reverse map order and the
// sharding key dropped. The executor's models must not share it, or the placement checker and
// the guard model would agree with the broken sink instead of catching it.
vi.mock('../../sinks/spec/validate-hosts.ts', async (original) => {
  const real = await original<typeof import('../../sinks/spec/validate-hosts.ts')>();
  return {
    ...real,
    validateHostForms: (...args: Parameters<typeof real.validateHostForms>) => {
      const { topology } = real.validateHostForms(...args);
      return {
        topology:
          topology?.form === 'shard_hosts'
            ? { ...topology, shards: new Map([...topology.shards].reverse()) }
            : topology,
        shardingKeyColumns: [],
      };
    },
  };
});

const description = {
  shards: [
    { name: 's1', replicas: [{ name: 's1r1', http: 'http://127.10.1.1:8123' }] },
    { name: 's2', replicas: [{ name: 's2r1', http: 'http://127.10.2.1:8123' }] },
  ],
} as unknown as ClusterDescription;

const sharded = (shardHosts: Record<string, string[]>): RawSinkSpec => ({
  sink_class_name: 'ShardedClickHouseBatchingSink',
  name: 'events',
  parameters: { table: 'events', port: 8123, shard_hosts: shardHosts, sharding_key_columns: ['key'] },
  dynamic_parameters: {},
});
const inOrder = sharded({ s1: ['127.10.1.1'], s2: ['127.10.2.1'] });
const reversed = sharded({ s2: ['127.10.2.1'], s1: ['127.10.1.1'] });

describe("the executor's reading of a spec, beside a broken sink-side parser", () => {
  it('the planted bug is real: the sinks’ parser now reads the shards reversed and no key', () => {
    const read = validateHostForms(
      new ObjectReader(inOrder.parameters, 'parameters', new SpecProblems()),
      SINK_CLASSES.ShardedClickHouseBatchingSink,
    );
    expect(read.topology?.form === 'shard_hosts' && [...read.topology.shards.keys()]).toEqual(['s2', 's1']);
    expect(read.shardingKeyColumns).toEqual([]);
  });

  it('keeps the key column in the placement layout: rows a key-less sink routes elsewhere are misplaced', () => {
    expect(routingLayouts([{ from: 0, spec: inOrder }])).toEqual([{ shards: ['s1', 's2'], keyColumns: ['key'] }]);
  });

  it('keeps the canonical shard order in the guard model: a sink refusing a mere reorder is refusing without cause', () => {
    expect(specTopology(reversed)).toMatchObject({
      shards: new Map([
        ['s1', ['127.10.1.1']],
        ['s2', ['127.10.2.1']],
      ]),
    });
    expect(topologyKey(reversed, description)).toBe(topologyKey(inOrder, description));
    expect(topologyKey(inOrder, description)).toBe('sharded[s1,s2|key] s1=s1 s2=s2');
  });
});
