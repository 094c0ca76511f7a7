import fc from 'fast-check';
import type { FaultSpec } from '../../properties/schedule/fault-spec.ts';
import {
  BANDWIDTH,
  LATENCY,
  LIMIT_DATA,
  PROXY_DOWN,
  REQUEST_TIMEOUT,
  RESET_PEER,
  RESPONSE_TIMEOUT,
  SLICER,
} from '../nemeses/families/client-link.ts';
import { faultSpec } from '../nemeses/families/family.ts';
import { KEEPER_LINK_CUT, KEEPER_PAUSE } from '../nemeses/families/keeper.ts';
import { QUORUM_INTERSERVER_CUT, QUORUM_SIBLING_KILL, QUORUM_SIBLING_PAUSE } from '../nemeses/families/quorum.ts';
import { INTERSERVER_CUT, REPLICA_KILL, REPLICA_PAUSE } from '../nemeses/families/replica.ts';
import type { ScenarioContext } from './scenario.ts';

/**
 * Latency of at least 150 ms after jitter: the evidence that it fired is that the INSERT it was
 * aimed at took at least latency - jitter, which an unfaulted INSERT here (15-65 ms) never does.
 */
const arbLatency: fc.Arbitrary<FaultSpec> = fc
  .record({ ms: fc.integer({ min: 200, max: 800 }), jitter: fc.integer({ min: 0, max: 50 }) })
  .map(({ ms, jitter }) => faultSpec(LATENCY, { ms, jitter }));

const arbRequestTimeout = (min: number, max: number): fc.Arbitrary<FaultSpec> =>
  fc.integer({ min, max }).map((ms) => faultSpec(REQUEST_TIMEOUT, { ms }));

/** Faults that cut an INSERT's response: it committed, the sink never hears (unknown → landed). */
export const arbLandedFault: fc.Arbitrary<FaultSpec> = fc.oneof(
  fc.constant(faultSpec(RESET_PEER, {})),
  fc.integer({ min: 1, max: 60 }).map((bytes) => faultSpec(LIMIT_DATA, { bytes })),
  fc.integer({ min: 200, max: 1500 }).map((ms) => faultSpec(RESPONSE_TIMEOUT, { ms })),
);

/** Faults that swallow an INSERT's request, then close: nothing reached the server (unknown → absent). */
export const arbAbsentFault: fc.Arbitrary<FaultSpec> = arbRequestTimeout(100, 1000);

export const arbUnknownOutcomeFault: fc.Arbitrary<FaultSpec> = fc.oneof(arbLandedFault, arbAbsentFault);

/**
 * Bandwidth and slicer paced at about 1/3 ms per byte: the evidence that they fired is that the
 * INSERT took at least what its bytes need through the toxic, and at least 200 ms (more than an
 * unfaulted INSERT takes). The smallest INSERT here puts about 650 B on the wire (headers
 * included), so it needs 200 ms or more; the largest (an at-least-once epoch, about 9 KB) about
 * 3 s, within most write timeouts (3-6 s). A slice is at most 1.5 × `size` bytes and waits
 * `size` × 500 µs.
 */
const arbBandwidth: fc.Arbitrary<FaultSpec> = fc
  .integer({ min: 2, max: 3 })
  .map((rate) => faultSpec(BANDWIDTH, { rate }));
const arbSlicer: fc.Arbitrary<FaultSpec> = fc
  .integer({ min: 2, max: 16 })
  .map((size) => faultSpec(SLICER, { size, delayUs: size * 500 }));

export const arbDegradationFault: fc.Arbitrary<FaultSpec> = fc.oneof(
  arbLatency,
  arbBandwidth,
  arbSlicer,
  fc.constant(faultSpec(PROXY_DOWN, {})),
  arbRequestTimeout(300, 1500),
);

/** What hits the sends of the at-most-once queue: both kinds of unknown outcome, and slowness. */
export const arbQueueSendFault: fc.Arbitrary<FaultSpec> = fc.oneof(arbLandedFault, arbAbsentFault, arbLatency);

export const arbReplicaFault: fc.Arbitrary<FaultSpec> = fc.constantFrom(
  faultSpec(REPLICA_KILL, {}),
  faultSpec(REPLICA_PAUSE, {}),
  faultSpec(INTERSERVER_CUT, {}),
);

/** What a quorum INSERT waits for, cut while it waits: its sibling stopped or killed, or its own replication endpoint. */
export const arbQuorumFault: fc.Arbitrary<FaultSpec> = fc.constantFrom(
  faultSpec(QUORUM_SIBLING_PAUSE, {}),
  faultSpec(QUORUM_SIBLING_KILL, {}),
  faultSpec(QUORUM_INTERSERVER_CUT, {}),
);

export const arbKeeperFault = (context: ScenarioContext): fc.Arbitrary<FaultSpec> =>
  fc.oneof(
    fc.constantFrom(...context.keepers).map((keeper) => faultSpec(KEEPER_PAUSE, { keeper })),
    fc.constantFrom(faultSpec(KEEPER_LINK_CUT, { scope: 'replica' }), faultSpec(KEEPER_LINK_CUT, { scope: 'all' })),
  );
