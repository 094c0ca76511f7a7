import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { meetsBoundary, type RawSinkSpec, type SpecBoundary } from '../../properties/arbitraries/index.ts';
import { CATALOGUE } from './catalogue.ts';
import type { ScenarioContext } from './scenario.ts';

const cluster = (shards: number, replicas: number): ClusterDescription =>
  ({
    shards: Array.from({ length: shards }, (_, i) => ({
      name: `s${i + 1}`,
      replicas: Array.from({ length: replicas }, (_, j) => ({
        name: `s${i + 1}r${j + 1}`,
        http: `http://127.10.${i + 1}.${j + 1}:8123`,
      })),
    })),
    keepers: [{ name: 'k1' }],
  }) as unknown as ClusterDescription;

const specOf = (sinkClass: string): RawSinkSpec => ({
  sink_class_name: sinkClass,
  name: 'chaos_sink',
  parameters: {
    port: 8123,
    database: 'chaos',
    table: 'events_rep',
    ...(sinkClass === 'ShardedClickHouseBatchingSink'
      ? { shard_hosts: { s1: ['127.10.1.1', '127.10.1.2'], s2: ['127.10.2.1', '127.10.2.2'] } }
      : { host: '127.10.1.1' }),
  },
  dynamic_parameters: { max_insert_attempts: 5, max_rows_per_batch: 7, max_bytes_per_batch: 4096 },
});

const declaring = CATALOGUE.flatMap((scenario) =>
  scenario.classes
    .filter((sinkClass) => (scenario.coverage(sinkClass).boundaries ?? []).length > 0)
    .map((sinkClass) => [`${scenario.name} / ${sinkClass}`, scenario, sinkClass] as const),
);

describe('scenarios that declare spec boundaries', () => {
  it('are there (server-errors, for every class)', () => {
    expect(declaring.map(([name]) => name)).toEqual(
      expect.arrayContaining(
        CATALOGUE.filter((s) => s.name === 'server-errors').flatMap((s) =>
          s.classes.map((c) => `server-errors / ${c}`),
        ),
      ),
    );
  });

  // A single-replica cluster has no second host to list: the declared boundaries follow the cluster.
  it.each(
    declaring.flatMap(([name, scenario, sinkClass]) => [
      [`${name} on 2x2`, scenario, sinkClass, cluster(2, 2)] as const,
      [`${name} on 3x1`, scenario, sinkClass, cluster(3, 1)] as const,
    ]),
  )(
    '%s: every drawn schedule aims a fault at the sink on each declared boundary (seed 5)',
    (_name, scenario, sinkClass, description) => {
      const declared = scenario.coverage(sinkClass, description).boundaries ?? [];
      const context: ScenarioContext = { description, keepers: ['k1'], spec: specOf(sinkClass), ownsCluster: true };
      for (const schedule of fc.sample(scenario.commands(context), { numRuns: 10, seed: 5 })) {
        const faulted = new Set<SpecBoundary>();
        schedule.forEach((step, i) => {
          const next = schedule[i + 1];
          if (step.kind !== 'restart-with-spec' || next?.kind !== 'fault-episode') return;
          for (const boundary of declared)
            if (meetsBoundary(step.spec, boundary as SpecBoundary)) faulted.add(boundary as SpecBoundary);
        });
        expect([...faulted].sort()).toEqual([...declared].sort());
      }
    },
  );
});
