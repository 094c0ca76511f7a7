import fc from 'fast-check';
import { CRASH_POINTS, type CrashPoint } from '../../harness/flow/history/index.ts';
import {
  arbDynamicParameters,
  arbEveryOnce,
  arbTiming,
  MAX_PARTITIONS,
  type BoundarySpec,
  type RawSinkSpec,
} from '../../properties/arbitraries/index.ts';
import { type ChainLink, type FaultSpec, type ScheduleStep, step } from '../../properties/schedule/index.ts';
import type { SinkClassName } from '../../sinks/index.ts';
import {
  faultSpec,
  KEEPER_LEADER_KILL,
  KEEPER_LEADER_PAUSE,
  KEEPER_LINK_CUT,
  KEEPER_QUORUM_LOSS,
  RESET_PEER,
  SERVER_ERROR_FAMILIES,
} from '../nemeses/index.ts';
import { SHORT_DEDUP_WINDOW_S } from './scenario.ts';
import { arbAbsentFault, arbLandedFault, arbUnknownOutcomeFault } from './fault-arbitraries.ts';

const arbWrite = fc.integer({ min: 1, max: 2 }).map((epochs) => step.write(epochs));

function arbEpisode(arbFault: fc.Arbitrary<FaultSpec>): fc.Arbitrary<ScheduleStep> {
  return fc
    .record({ fault: arbFault, epochs: fc.integer({ min: 1, max: 2 }), holdMs: arbTiming({ min: 600, max: 2000 }) })
    .map(({ fault, epochs, holdMs }) => step.faultEpisode(fault, epochs, holdMs));
}

/**
 * A schedule that starts with a fault episode (so every schedule, even shrunk, exercises the
 * scenario's fault family) followed by up to `more` writes and further episodes.
 */
export function arbFaultSchedule(arbFault: fc.Arbitrary<FaultSpec>, more = 3): fc.Arbitrary<ScheduleStep[]> {
  return fc
    .tuple(arbWrite, arbEpisode(arbFault), fc.array(fc.oneof(arbWrite, arbEpisode(arbFault)), { maxLength: more }))
    .map(([write, first, rest]) => [write, first, ...rest]);
}

/** As `arbFaultSchedule`, with the operator's restart after every episode that left a partition given up. */
export function arbFaultScheduleWithRestarts(
  arbFault: fc.Arbitrary<FaultSpec>,
  more = 3,
): fc.Arbitrary<ScheduleStep[]> {
  return arbFaultSchedule(arbFault, more).map((schedule) =>
    schedule.flatMap((each) => (each.kind === 'fault-episode' ? [each, step.restartAfterGiveUp()] : [each])),
  );
}

/**
 * As `arbFaultSchedule` for a sink that queues and sends on its own, one partition: a first write
 * drained (the write session opens before any fault), and a drain before every episode. Writes
 * left in flight would keep a queue of a few messages full, so every message of the episode's
 * own epochs could be dropped and the fault armed on its next INSERT would meet none.
 */
export function arbDrainedFaultSchedule(arbFault: fc.Arbitrary<FaultSpec>): fc.Arbitrary<ScheduleStep[]> {
  return arbFaultSchedule(arbFault).map((schedule) => [
    step.write(1),
    ...schedule.flatMap((each) => (each.kind === 'fault-episode' ? [step.drain([0]), each] : [each])),
  ]);
}

/**
 * Both kinds of unknown outcome in every schedule, in either order: an INSERT whose answer is
 * cut after it committed, and one whose request is cut before it reached the server; then up to
 * two more of either, or writes.
 */
export function arbUnknownOutcomeSchedule(): fc.Arbitrary<ScheduleStep[]> {
  return fc
    .tuple(
      arbWrite,
      arbEpisode(arbLandedFault),
      arbEpisode(arbAbsentFault),
      fc.boolean(),
      fc.array(fc.oneof(arbWrite, arbEpisode(arbUnknownOutcomeFault)), { maxLength: 2 }),
    )
    .map(([write, landed, absent, absentFirst, rest]) => [
      write,
      ...(absentFirst ? [absent, landed] : [landed, absent]),
      ...rest,
    ]);
}

function arbReconfigure(sinkClass: SinkClassName): fc.Arbitrary<ScheduleStep> {
  return fc
    .record({
      dynamic: arbDynamicParameters(sinkClass),
      epochs: fc.integer({ min: 1, max: 2 }),
      afterMs: arbTiming({ min: 0, max: 100 }),
    })
    .map(({ dynamic, epochs, afterMs }) => step.reconfigureWhileWriting(dynamic, epochs, afterMs));
}

/**
 * Live reconfiguration between unknown-outcome faults: a change of the whole dynamic section
 * (write timeout, retries, batch limits, queue limit) while an INSERT is in flight, then both
 * kinds of unknown outcome whose replays run under the new parameters, then more of any.
 */
export function arbReconfigureSchedule(sinkClass: SinkClassName): fc.Arbitrary<ScheduleStep[]> {
  return fc
    .tuple(
      arbReconfigure(sinkClass),
      arbUnknownOutcomeSchedule(),
      fc.array(fc.oneof(arbReconfigure(sinkClass), arbEpisode(arbUnknownOutcomeFault)), { maxLength: 1 }),
    )
    .map(([reconfigure, [write, ...unknowns], rest]) => [write as ScheduleStep, reconfigure, ...unknowns, ...rest]);
}

/**
 * A crash at every named point, in a random order (four points: none is left to chance), each
 * followed by a write or not, then a last write; a failure shrinks to the crash that matters.
 */
export function arbCrashSchedule(points: readonly CrashPoint[] = CRASH_POINTS): fc.Arbitrary<ScheduleStep[]> {
  return fc
    .tuple(
      arbWrite,
      arbEveryOnce(points),
      fc.array(fc.boolean(), { minLength: points.length, maxLength: points.length }),
      arbWrite,
    )
    .map(([before, order, writeAfter, after]) => [
      before,
      ...order.flatMap((point, i) => [step.crash(point), ...(writeAfter[i] ? [step.write(1)] : [])]),
      after,
    ]);
}

/**
 * At-most-once has two delivery paths (ordered pending messages, or the bounded queue); the
 * schedule runs in the spec's mode, then restarts the sink in the other one and runs again, so
 * every run covers both.
 */
export function inBothStrategyModes(
  spec: RawSinkSpec,
  arbSchedule: fc.Arbitrary<ScheduleStep[]>,
): fc.Arbitrary<ScheduleStep[]> {
  const strategy = spec.parameters.at_most_once_strategy as { enabled?: boolean } | undefined;
  const enabled = !(strategy?.enabled ?? false);
  const other: RawSinkSpec = {
    ...spec,
    parameters: { ...spec.parameters, at_most_once_strategy: { ...strategy, enabled } },
  };
  return fc
    .tuple(arbSchedule, arbSchedule)
    .map(([first, second]) => [
      ...first,
      step.restartWithSpec(other, `at_most_once_strategy.enabled = ${enabled}`),
      ...second,
    ]);
}

/** Every partition a drawn workload may have (`arbWorkload`); a drain skips the ones a run lacks. */
const EVERY_PARTITION = Array.from({ length: MAX_PARTITIONS }, (_, partition) => partition);

/**
 * Every kind of server error once, in a drawn order: each refuses every INSERT into the run's
 * tables until the sink's retries ended (the sink gives up, or acknowledges with an error), then
 * the operator restarts the pipeline with the same spec — a new sink instance — and it goes on.
 * With `boundaries` (specs on the class's spec boundaries, `boundarySpecs`), the last errors meet
 * each of them in a drawn order: the backlog drained, the sink restarted on the boundary, the
 * error, the operator's restart on it again; with more boundaries than kinds, kinds come round
 * again.
 * Shrinking drops kinds and boundaries alike, down to the one error on the one boundary that matters.
 */
export function arbServerErrorSchedule(
  spec: RawSinkSpec,
  ownsCluster: boolean,
  boundaries: readonly BoundarySpec[] = [],
): fc.Arbitrary<ScheduleStep[]> {
  const kinds = (Object.keys(SERVER_ERROR_FAMILIES) as (keyof typeof SERVER_ERROR_FAMILIES)[]).filter(
    (kind) => ownsCluster || kind !== 'part_writer_failpoint',
  );
  const most = Math.max(kinds.length, boundaries.length);
  return fc
    .record({
      before: arbWrite,
      order: arbEveryOnce(kinds),
      onBoundaries: arbEveryOnce(boundaries),
      epochs: fc.array(fc.integer({ min: 1, max: 2 }), { minLength: most, maxLength: most }),
      after: arbWrite,
    })
    .map(({ before, order, onBoundaries, epochs, after }) => [
      before,
      ...Array.from({ length: Math.max(order.length, onBoundaries.length) }, (_, i) => {
        const kind = order[i % order.length] as keyof typeof SERVER_ERROR_FAMILIES;
        // The boundaries take the last errors: once the spec left the starting one, every
        // operator's restart is on the spec in force (the starting spec again could change the
        // routing over a given-up backlog, which the guard must refuse).
        const boundary = onBoundaries[i - Math.max(order.length - onBoundaries.length, 0)];
        const label = boundary === undefined ? '' : ` on ${boundary.boundaries.join(', ')}`;
        return [
          ...(boundary === undefined
            ? []
            : [step.drain(EVERY_PARTITION), step.restartWithSpec(boundary.spec, boundary.boundaries.join(', '))]),
          step.faultEpisode(faultSpec(SERVER_ERROR_FAMILIES[kind], {}), epochs[i] ?? 1, 0),
          step.restartWithSpec(boundary?.spec ?? spec, `the operator restarts after ${kind}${label}`),
        ];
      }).flat(),
      after,
    ]);
}

/**
 * Every fault of a Keeper ensemble once, in a drawn order, each aimed at the first INSERT of one
 * or two epochs: the leader paused, the leader killed, a majority paused, the INSERT's replica cut
 * from every member; then a last write once the ensemble is whole again.
 */
export function arbKeeperEnsembleSchedule(): fc.Arbitrary<ScheduleStep[]> {
  const kinds = [
    faultSpec(KEEPER_LEADER_PAUSE, {}),
    faultSpec(KEEPER_LEADER_KILL, {}),
    faultSpec(KEEPER_QUORUM_LOSS, {}),
    faultSpec(KEEPER_LINK_CUT, { scope: 'replica' }),
  ];
  return fc
    .record({
      before: arbWrite,
      order: arbEveryOnce(kinds),
      epochs: fc.array(fc.integer({ min: 1, max: 2 }), { minLength: kinds.length, maxLength: kinds.length }),
      holdMs: arbTiming({ min: 600, max: 2000 }),
      after: arbWrite,
    })
    .map(({ before, order, epochs, holdMs, after }) => [
      before,
      ...order.map((fault, i) => step.faultEpisode(fault, epochs[i] ?? 1, holdMs)),
      after,
    ]);
}

/**
 * An answer cut after partition 0's INSERT committed, its replay held while the other partition
 * writes after the short window has passed (and ClickHouse's cleanup forgets the token), then
 * more writes. On a table with the server's hour-long window the same replay is deduplicated.
 */
export function arbDedupWindowSchedule(): fc.Arbitrary<ScheduleStep[]> {
  return fc
    .record({ epochs: fc.integer({ min: 1, max: 2 }), after: arbWrite })
    .map(({ epochs, after }) => [
      step.write(1),
      step.replayAfterDedupWindow(faultSpec(RESET_PEER, {}), epochs, SHORT_DEDUP_WINDOW_S * 1000 + 500),
      after,
    ]);
}

/** A chain from an answer cut after the commit, then one or two more unknown outcomes whose links meet what `meets` draws. */
function arbChain(meets: fc.Arbitrary<ChainLink['meets']>): fc.Arbitrary<ScheduleStep> {
  const arbLink = fc.tuple(arbUnknownOutcomeFault, meets).map(([fault, on]): ChainLink => ({ fault, meets: on }));
  return fc
    .record({
      first: arbLandedFault,
      // An array: a failure shrinks to fewer links.
      later: fc.array(arbLink, { minLength: 1, maxLength: 2 }),
      epochs: fc.integer({ min: 1, max: 2 }),
      holdMs: arbTiming({ min: 600, max: 2000 }),
    })
    .map(({ first, later, epochs, holdMs }) => step.faultChain(first, later, epochs, holdMs));
}

/**
 * Faults on consecutive attempts of one INSERT, in every schedule: a chain on the sink's own
 * retries (its answer cut after it committed, then one or two more unknown outcomes of either
 * kind), and a chain whose later links meet either a retry or the replay after the sink was
 * killed waiting for the previous outcome; between writes, then up to one more write.
 */
export function arbRetryChainSchedule(): fc.Arbitrary<ScheduleStep[]> {
  return fc
    .tuple(
      arbWrite,
      arbChain(fc.constant('retry')),
      arbChain(fc.constantFrom<ChainLink['meets']>('retry', 'replay')),
      fc.array(arbWrite, { maxLength: 1 }),
    )
    .map(([write, retries, replays, rest]) => [write, retries, replays, ...rest]);
}
