import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RawSinkSpec } from '../../properties/arbitraries/index.ts';
import { arbServerErrorSchedule } from './schedules.ts';

const spec = {
  sink_class_name: 'ClickHouseBatchingSink',
  name: 's',
  parameters: {},
  dynamic_parameters: {},
} as RawSinkSpec;
const kinds = (ownsCluster: boolean) =>
  fc
    .sample(arbServerErrorSchedule(spec, ownsCluster), { numRuns: 20, seed: 7 })
    .map((commands) => commands.flatMap((step) => (step.kind === 'fault-episode' ? [step.fault.type] : [])).sort());

describe('arbServerErrorSchedule', () => {
  it('draws every server error once per run on a cluster the harness started', () => {
    for (const run of kinds(true))
      expect(run).toEqual([
        'constraint_violated',
        'not_enough_space',
        'part_writer_failpoint',
        'table_detached',
        'too_many_parts',
      ]);
  });

  it('never enables a node-wide failpoint on an attached cluster, whose other tables it would break', () => {
    for (const run of kinds(false))
      expect(run).toEqual(['constraint_violated', 'not_enough_space', 'table_detached', 'too_many_parts']);
  });
});
