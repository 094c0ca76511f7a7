import fc from 'fast-check';
import { arbEveryOnce, arbTiming } from '../../properties/arbitraries/index.ts';
import { type FaultSpec, type ScheduleStep, step } from '../../properties/schedule/index.ts';
import { SINK_CLASS_NAMES, SINK_CLASSES } from '../../sinks/index.ts';
import { faultSpec, KEEPER_LINK_LATENCY, LIMIT_DATA, RESET_PEER, SERVER_ERROR_FAMILIES } from '../nemeses/index.ts';
import { arbAbsentFault } from './fault-arbitraries.ts';
import type { ScenarioContext, ScenarioDefinition } from './scenario.ts';

/**
 * Two faults in one step, `cut` and `other`, the cut applied first unless `otherFirst`, and healed
 * first unless `otherHealsFirst`: drawn as booleans, which shrink to false, so a shrunk pair
 * applies and heals the cut first.
 */
const pairStep = (cut: FaultSpec, other: FaultSpec, otherFirst: boolean, otherHealsFirst: boolean): ScheduleStep => {
  const faults = otherFirst ? ([other, cut] as const) : ([cut, other] as const);
  const cutAt = otherFirst ? 1 : 0;
  return step.overlappingFaults(faults, otherHealsFirst ? ((1 - cutAt) as 0 | 1) : cutAt, 2, 0);
};

/**
 * The aimed INSERT's request swallowed (unknown, it never reached the server) while every replica
 * refuses INSERTs into the run's tables with a server error until the writes end: the sink's first
 * attempt fails in the transport, every retry on the server. The cut heals when the aimed INSERT
 * ended, so it is always healed first (held to the end, a one-host spec would retry into it,
 * transient, without limit). Two epochs: at-most-once never retries a started INSERT, so its next
 * INSERT is the one that meets the refusal.
 */
function arbRefusedRetry(context: ScenarioContext): fc.Arbitrary<ScheduleStep> {
  const kinds = (Object.keys(SERVER_ERROR_FAMILIES) as (keyof typeof SERVER_ERROR_FAMILIES)[]).filter(
    (kind) => context.ownsCluster || kind !== 'part_writer_failpoint',
  );
  return fc
    .record({ cut: arbAbsentFault, refusal: fc.constantFrom(...kinds), otherFirst: fc.boolean() })
    .map(({ cut, refusal, otherFirst }) =>
      pairStep(cut, faultSpec(SERVER_ERROR_FAMILIES[refusal], {}), otherFirst, false),
    );
}

/**
 * The aimed INSERT's answer cut after it committed while its replica's Keeper links are slow: the
 * INSERT waits on Keeper (its own requests in zookeeper_log), commits, and its answer is lost. The
 * Keeper latency stays at 200-300 ms so the INSERT's few Keeper round trips end well within the
 * smallest write timeout (3 s): the unknown outcome is the cut's, not a client timeout's.
 */
const arbSlowKeeperCut: fc.Arbitrary<ScheduleStep> = fc
  .record({
    cut: fc.oneof(
      fc.constant(faultSpec(RESET_PEER, {})),
      arbTiming({ min: 1, max: 60 }).map((bytes) => faultSpec(LIMIT_DATA, { bytes })),
    ),
    ms: arbTiming({ min: 200, max: 300 }),
    jitter: arbTiming({ min: 0, max: 50 }),
    otherFirst: fc.boolean(),
    otherHealsFirst: fc.boolean(),
  })
  .map(({ cut, ms, jitter, otherFirst, otherHealsFirst }) =>
    pairStep(cut, faultSpec(KEEPER_LINK_LATENCY, { ms, jitter }), otherFirst, otherHealsFirst),
  );

/**
 * Both pairs in every schedule, in a drawn order, each followed by the operator's restart after a
 * give-up (the refusals outlast the retry budget); a write before and after. Shrinking drops a
 * pair, then each pair's order and heal order fall to the cut first.
 */
export function arbOverlappingSchedule(context: ScenarioContext): fc.Arbitrary<ScheduleStep[]> {
  return fc
    .record({
      before: fc.integer({ min: 1, max: 2 }),
      refused: arbRefusedRetry(context),
      slow: arbSlowKeeperCut,
      order: arbEveryOnce(['refused', 'slow'] as const),
      after: fc.integer({ min: 1, max: 2 }),
    })
    .map(({ before, refused, slow, order, after }) => [
      step.write(before),
      ...order.flatMap((pair) => [pair === 'refused' ? refused : slow, step.restartAfterGiveUp()]),
      step.write(after),
    ]);
}

export const overlappingFaultsScenario: ScenarioDefinition = {
  name: 'overlapping-faults',
  description:
    "two faults in force on one INSERT at once, both shown to have acted: its request swallowed while every replica refuses with a server error until the writes end (the first attempt fails in the transport, every retry on the server: a budget of max_insert_attempts attempts in total), and its answer cut after it committed while its replica's Keeper links are slow",
  classes: SINK_CLASS_NAMES,
  commands: arbOverlappingSchedule,
  coverage: (sinkClass) => ({
    overlappingFaults: true,
    giveUp: SINK_CLASSES[sinkClass].guarantee !== 'at-most-once',
  }),
};
