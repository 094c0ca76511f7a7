import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BoundarySpec, RawSinkSpec } from '../../properties/arbitraries/index.ts';
import { step } from '../../properties/schedule/index.ts';
import { arbQueueSendFault } from './fault-arbitraries.ts';
import { arbDrainedFaultSchedule, arbServerErrorSchedule } from './schedules.ts';

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

describe('arbServerErrorSchedule on spec boundaries', () => {
  const on = (boundary: BoundarySpec['boundaries'][number], max_insert_attempts: number): BoundarySpec => ({
    boundaries: [boundary],
    spec: { ...spec, dynamic_parameters: { max_insert_attempts } },
  });
  const boundaries = [on('host', 2), on('hosts', 3), on('max_insert_attempts = 1', 1)];

  it('meets a server error on every boundary in every run: drained, restarted on it, the error, the operator restarting on it', () => {
    for (const run of fc.sample(arbServerErrorSchedule(spec, false, boundaries), { numRuns: 20, seed: 7 })) {
      for (const boundary of boundaries) {
        const at = run.findIndex((each) => each.kind === 'restart-with-spec' && each.spec === boundary.spec);
        expect(run.slice(at - 1, at + 3).map((each) => each.kind)).toEqual([
          'drain',
          'restart-with-spec',
          'fault-episode',
          'restart-with-spec',
        ]);
        expect(run[at + 2]).toMatchObject({ kind: 'restart-with-spec', spec: boundary.spec });
      }
    }
  });

  it('never restarts on the starting spec once it left it (a routing change over a given-up backlog would be refused)', () => {
    for (const run of fc.sample(arbServerErrorSchedule(spec, false, boundaries), { numRuns: 20, seed: 7 })) {
      const restarts = run.flatMap((each) => (each.kind === 'restart-with-spec' ? [each.spec] : []));
      const left = restarts.findIndex((restarted) => restarted !== spec);
      expect(restarts.slice(left)).not.toContain(spec);
    }
  });

  it('comes round the kinds again when there are more boundaries than kinds', () => {
    const many = [...boundaries, on('shard_hosts keyed', 4), on('shard_hosts unkeyed', 5)];
    for (const run of fc.sample(arbServerErrorSchedule(spec, false, many), { numRuns: 10, seed: 7 }))
      expect(run.filter((each) => each.kind === 'fault-episode')).toHaveLength(5);
  });

  it('shrinks to the one error on the one boundary that matters, the boundary kept exact', () => {
    const onSingleAttempt = (run: readonly { kind: string; spec?: RawSinkSpec }[]) =>
      run.some((each, i) => each.spec === boundaries[2]?.spec && run[i + 1]?.kind === 'fault-episode');
    const details = fc.check(
      fc.property(arbServerErrorSchedule(spec, false, boundaries), (run) => !onSingleAttempt(run)),
      { seed: 7, numRuns: 5 },
    );
    const [shrunk] = details.counterexample ?? [[]];
    expect(shrunk.filter((each) => each.kind === 'fault-episode')).toHaveLength(1);
    expect(shrunk.filter((each) => each.kind === 'restart-with-spec').map((each) => each.spec)).toEqual([
      boundaries[2]?.spec,
      boundaries[2]?.spec,
    ]);
  });
});

describe('arbDrainedFaultSchedule', () => {
  it('drains before every episode, so a queue of a few messages is empty when the fault is armed on its next INSERT', () => {
    for (const run of fc.sample(arbDrainedFaultSchedule(arbQueueSendFault), { numRuns: 30, seed: 7 })) {
      const episodes = run.flatMap((each, at) => (each.kind === 'fault-episode' ? [at] : []));
      expect(episodes.length).toBeGreaterThan(0);
      for (const at of episodes) expect(run[at - 1]).toEqual(step.drain([0]));
    }
  });
});
