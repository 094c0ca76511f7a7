import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SINK_CLASS_NAMES, SINK_CLASSES, validateDynamicParameters } from '../../sinks/index.ts';
import { SinkRegistry } from '../../sinks/registry.ts';
import { validateSinkSpec } from '../../sinks/spec/validate-spec.ts';
import { arbDynamicParameters, arbSinkSpec } from './arb-sink-spec.ts';
import type { ClusterEndpoints } from './cluster-endpoints.ts';

const endpoints: ClusterEndpoints = {
  port: 24000,
  shards: new Map([
    ['s1', ['127.10.1.1', '127.10.1.2']],
    ['s2', ['127.10.2.1', '127.10.2.2']],
  ]),
};
const context = { registry: SinkRegistry.descriptorsOnly() };

describe('arbSinkSpec (seed 7)', () => {
  it.each(SINK_CLASS_NAMES)(
    'generates only specs the real validator accepts for %s, in every host form the class takes',
    (sinkClass) => {
      const forms = new Set<string>();
      fc.assert(
        fc.property(
          arbSinkSpec({ sinkClass, name: 'chaos_sink', database: 'chaos_1', table: 'events_rep', endpoints }),
          (raw) => {
            const result = validateSinkSpec(raw, context);
            expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([]);
            forms.add(['host', 'hosts', 'shard_hosts'].find((form) => form in raw.parameters) ?? '?');
          },
        ),
        { seed: 7, numRuns: 60 },
      );
      const expected =
        sinkClass === 'ClickHouseBatchingSink'
          ? ['host', 'hosts']
          : sinkClass === 'ShardedClickHouseBatchingSink'
            ? ['shard_hosts']
            : ['host', 'hosts', 'shard_hosts'];
      expect([...forms].sort()).toEqual(expected);
    },
  );
});

describe('arbDynamicParameters (seed 7)', () => {
  it.each(SINK_CLASS_NAMES)('generates whole dynamic sections a live reconfiguration of %s accepts', (sinkClass) => {
    fc.assert(
      fc.property(arbDynamicParameters(sinkClass), (dynamic) => {
        const result = validateDynamicParameters(dynamic, SINK_CLASSES[sinkClass]);
        expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([]);
      }),
      { seed: 7, numRuns: 60 },
    );
  });
});
