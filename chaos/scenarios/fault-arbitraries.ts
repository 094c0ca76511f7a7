import fc from 'fast-check';
import {
  bandwidthPlan,
  interserverCutPlan,
  keeperLinkCutPlan,
  keeperPausePlan,
  latencyPlan,
  limitDataPlan,
  proxyDownPlan,
  QUORUM_PLANS,
  replicaKillPlan,
  replicaPausePlan,
  requestTimeoutPlan,
  resetPeerPlan,
  responseTimeoutPlan,
  slicerPlan,
  type FaultPlan,
} from '../nemeses/fault-plan.ts';
import type { ScenarioContext } from './scenario.ts';

/**
 * Latency of at least 150 ms after jitter: the evidence that it fired is that the INSERT it was
 * aimed at took at least latency - jitter, which an unfaulted INSERT here (15-65 ms) never does.
 */
const arbLatency: fc.Arbitrary<FaultPlan> = fc
  .record({ ms: fc.integer({ min: 200, max: 800 }), jitter: fc.integer({ min: 0, max: 50 }) })
  .map(({ ms, jitter }) => latencyPlan(ms, jitter));

/** Faults that cut an INSERT's response: it committed, the sink never hears (unknown → landed). */
export const arbLandedFault: fc.Arbitrary<FaultPlan> = fc.oneof(
  fc.constant(resetPeerPlan()),
  fc.integer({ min: 1, max: 60 }).map((bytes) => limitDataPlan(bytes)),
  fc.integer({ min: 200, max: 1500 }).map((ms) => responseTimeoutPlan(ms)),
);

/** Faults that swallow an INSERT's request, then close: nothing reached the server (unknown → absent). */
export const arbAbsentFault: fc.Arbitrary<FaultPlan> = fc
  .integer({ min: 100, max: 1000 })
  .map((ms) => requestTimeoutPlan(ms));

export const arbUnknownOutcomeFault: fc.Arbitrary<FaultPlan> = fc.oneof(arbLandedFault, arbAbsentFault);

/**
 * Bandwidth and slicer paced at about 1/3 ms per byte: the evidence that they fired is that the
 * INSERT took at least what its bytes need through the toxic, and at least 200 ms (more than an
 * unfaulted INSERT takes). The smallest INSERT here puts about 650 B on the wire (headers
 * included), so it needs 200 ms or more; the largest (an at-least-once epoch, about 9 KB) about
 * 3 s, within most write timeouts (3-6 s). A slice is at most 1.5 × `size` bytes and waits
 * `size` × 500 µs.
 */
const arbBandwidth: fc.Arbitrary<FaultPlan> = fc.integer({ min: 2, max: 3 }).map((rate) => bandwidthPlan(rate));
const arbSlicer: fc.Arbitrary<FaultPlan> = fc.integer({ min: 2, max: 16 }).map((size) => slicerPlan(size, size * 500));

export const arbDegradationFault: fc.Arbitrary<FaultPlan> = fc.oneof(
  arbLatency,
  arbBandwidth,
  arbSlicer,
  fc.constant(proxyDownPlan()),
  fc.integer({ min: 300, max: 1500 }).map((ms) => requestTimeoutPlan(ms)),
);

/** What hits the sends of the at-most-once queue: both kinds of unknown outcome, and slowness. */
export const arbQueueSendFault: fc.Arbitrary<FaultPlan> = fc.oneof(arbLandedFault, arbAbsentFault, arbLatency);

export const arbReplicaFault: fc.Arbitrary<FaultPlan> = fc.constantFrom(
  replicaKillPlan(),
  replicaPausePlan(),
  interserverCutPlan(),
);

/** What a quorum INSERT waits for, cut while it waits: its sibling stopped or killed, or its own replication endpoint. */
export const arbQuorumFault: fc.Arbitrary<FaultPlan> = fc.constantFrom(
  QUORUM_PLANS.replica_pause(),
  QUORUM_PLANS.replica_kill(),
  QUORUM_PLANS.interserver_cut(),
);

export const arbKeeperFault = (context: ScenarioContext): fc.Arbitrary<FaultPlan> =>
  fc.oneof(
    fc.constantFrom(...context.keepers).map((keeper) => keeperPausePlan(keeper)),
    fc.constantFrom(keeperLinkCutPlan('replica'), keeperLinkCutPlan('all')),
  );
