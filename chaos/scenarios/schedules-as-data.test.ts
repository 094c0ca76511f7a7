import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TWO_BY_TWO } from './testing/two-by-two.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/index.ts';
import { describeFault, describeStep, stepFaults, type Schedule } from '../../properties/schedule/index.ts';
import { declaredCoverage } from '../../properties/judge/index.ts';
import { faultFamily, planOf } from '../nemeses/families/registry.ts';
import { CATALOGUE } from './catalogue.ts';
import type { ScenarioContext } from './scenario.ts';

const description = TWO_BY_TWO;

const parameters = { port: 8123, database: 'chaos', table: 'events_rep' };
const specOf = (sinkClass: string): RawSinkSpec =>
  ({
    sink_class_name: sinkClass,
    name: 'chaos_sink',
    parameters:
      sinkClass === 'ShardedClickHouseBatchingSink'
        ? { ...parameters, shard_hosts: { s1: ['127.10.1.1', '127.10.1.2'], s2: ['127.10.2.1', '127.10.2.2'] } }
        : { ...parameters, host: '127.10.1.1' },
    dynamic_parameters: {},
  }) as RawSinkSpec;

const pairs = CATALOGUE.flatMap((scenario) => scenario.classes.map((sinkClass) => ({ scenario, sinkClass })));

describe('every catalogue schedule is plain data', () => {
  it.each(pairs.map((pair) => [`${pair.scenario.name} / ${pair.sinkClass}`, pair] as const))(
    '%s: survives JSON, prints and declares the same, names registered fault families, declares their process actions (seed 11)',
    (_name, { scenario, sinkClass }) => {
      const context: ScenarioContext = { description, keepers: ['k1'], spec: specOf(sinkClass), ownsCluster: true };
      for (const schedule of fc.sample(scenario.commands(context), { numRuns: 10, seed: 11 })) {
        const stored = JSON.parse(JSON.stringify(schedule)) as Schedule;
        expect(stored).toStrictEqual(schedule);
        expect(stored.map(describeStep)).toEqual(schedule.map(describeStep));
        expect(declaredCoverage(scenario.coverage(sinkClass), sinkClass, stored)).toEqual(
          declaredCoverage(scenario.coverage(sinkClass), sinkClass, schedule),
        );
        for (const step of stored)
          for (const fault of stepFaults(step)) {
            expect(planOf(fault).toString()).toBe(describeFault(fault));
            // A cluster without the process actions its families take must not run the scenario half-way.
            expect(scenario.processActions ?? []).toEqual(
              expect.arrayContaining([...(faultFamily(fault.family).processActions ?? [])]),
            );
          }
      }
    },
  );
});
