import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SINK_CLASS_NAMES } from '../../sinks/index.ts';
import { SinkRegistry } from '../../sinks/registry.ts';
import { validateSinkSpec } from '../../sinks/spec/validate-spec.ts';
import { arbSinkSpec } from './arb-sink-spec.ts';
import type { ClusterEndpoints } from './cluster-endpoints.ts';
import { boundariesOf, boundarySpecs, meetsBoundary, SPEC_BOUNDARIES } from './spec-boundaries.ts';

const endpoints: ClusterEndpoints = {
  port: 24000,
  shards: new Map([
    ['s1', ['127.10.1.1', '127.10.1.2']],
    ['s2', ['127.10.2.1', '127.10.2.2']],
  ]),
};
const context = { registry: SinkRegistry.descriptorsOnly() };
const target = (sinkClass: (typeof SINK_CLASS_NAMES)[number]) =>
  arbSinkSpec({ sinkClass, name: 'chaos_sink', database: 'chaos_1', table: 'events_rep', endpoints });

describe('boundariesOf', () => {
  it('gives each class its host forms (sharded keyed and unkeyed), its limits, its strategy modes and async_insert both ways', () => {
    expect(boundariesOf('ClickHouseBatchingSink')).toEqual([
      'host',
      'hosts',
      'max_rows_per_batch = 1',
      'max_bytes_per_batch = 1 (below any message)',
      'max_insert_attempts = 1',
      'async_insert on',
      'async_insert off',
    ]);
    expect(boundariesOf('ShardedClickHouseBatchingSink')).toEqual([
      'shard_hosts keyed',
      'shard_hosts unkeyed',
      'max_rows_per_batch = 1',
      'max_bytes_per_batch = 1 (below any message)',
      'max_insert_attempts = 1',
      'async_insert on',
      'async_insert off',
    ]);
    expect(boundariesOf('AtLeastOnceClickHouseSink')).toEqual([
      'host',
      'hosts',
      'shard_hosts keyed',
      'shard_hosts unkeyed',
      'max_insert_attempts = 1',
      'async_insert on',
      'async_insert off',
    ]);
    expect(boundariesOf('AtMostOnceClickHouseSink')).toEqual([
      'host',
      'hosts',
      'shard_hosts keyed',
      'shard_hosts unkeyed',
      'max_insert_attempts = 1',
      'at-most-once ordered',
      'at-most-once queue',
      'at-most-once queue of 1 byte (below any message)',
      'async_insert on',
      'async_insert off',
    ]);
  });

  it('leaves out hosts where the first shard has a single host (a one-element list is refused)', () => {
    const single: ClusterEndpoints = { port: 1, shards: new Map([['s1', ['127.10.1.1']]]) };
    expect(boundariesOf('ClickHouseBatchingSink', single)).not.toContain('hosts');
  });
});

describe('boundarySpecs (seed 7)', () => {
  it.each(SINK_CLASS_NAMES)(
    'puts every boundary of %s on a spec the validator accepts, one host form per spec, no parameter twice',
    (sinkClass) => {
      fc.assert(
        fc.property(target(sinkClass), (spec) => {
          const packed = boundarySpecs(spec, boundariesOf(sinkClass, endpoints), endpoints);
          expect(packed.flatMap((each) => each.boundaries).sort()).toEqual(boundariesOf(sinkClass).sort());
          // As few specs as host forms: every run pays one restart per form, no more.
          expect(packed).toHaveLength(
            boundariesOf(sinkClass).filter((b) => b === 'host' || b === 'hosts' || b.startsWith('shard_hosts')).length,
          );
          for (const each of packed) {
            const result = validateSinkSpec(each.spec, context);
            expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([]);
            // Read back from the spec alone (as the judge does): on its own boundaries, and on no other of their parameter.
            const met = SPEC_BOUNDARIES.filter((boundary) => meetsBoundary(each.spec, boundary));
            for (const boundary of each.boundaries) expect(met).toContain(boundary);
            expect(met.filter((b) => b === 'host' || b === 'hosts' || b.startsWith('shard_hosts'))).toHaveLength(1);
          }
        }),
        { seed: 7, numRuns: 30 },
      );
    },
  );
});
