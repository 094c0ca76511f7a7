import fc from 'fast-check';
import { arbTiming } from '../../properties/arbitraries/index.ts';
import type { FaultSpec } from '../../properties/schedule/index.ts';
import {
  arbFault,
  BANDWIDTH,
  COMMIT_KEEPER_CUT,
  faultSpec,
  INTERSERVER_CUT,
  KEEPER_LINK_CUT,
  KEEPER_LINK_LATENCY,
  KEEPER_PAUSE,
  LATENCY,
  LIMIT_DATA,
  PROXY_DOWN,
  QUORUM_INTERSERVER_CUT,
  QUORUM_SIBLING_KILL,
  QUORUM_SIBLING_PAUSE,
  REPLICA_KILL,
  REPLICA_PAUSE,
  REQUEST_TIMEOUT,
  RESET_PEER,
  RESPONSE_TIMEOUT,
  SLICER,
} from '../nemeses/index.ts';
import type { ScenarioContext } from './scenario.ts';

/** The client-link families' generators need nothing of the cluster. */
const NO_KEEPERS = { keepers: [] };

const arbLatency = arbFault(LATENCY, NO_KEEPERS);

const arbRequestTimeout = (min: number, max: number): fc.Arbitrary<FaultSpec> =>
  arbTiming({ min, max }).map((ms) => faultSpec(REQUEST_TIMEOUT, { ms }));

/** Faults that cut an INSERT's response: it committed, the sink never hears (unknown → landed). */
export const arbLandedFault: fc.Arbitrary<FaultSpec> = fc.oneof(
  fc.constant(faultSpec(RESET_PEER, {})),
  arbFault(LIMIT_DATA, NO_KEEPERS),
  arbFault(RESPONSE_TIMEOUT, NO_KEEPERS),
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
const arbBandwidth = arbFault(BANDWIDTH, NO_KEEPERS);
const arbSlicer = arbFault(SLICER, NO_KEEPERS);

export const arbDegradationFault: fc.Arbitrary<FaultSpec> = fc.oneof(
  arbLatency,
  arbBandwidth,
  arbSlicer,
  fc.constant(faultSpec(PROXY_DOWN, {})),
  arbRequestTimeout(300, 1500),
);

/** What hits the sends of the at-most-once queue: both kinds of unknown outcome, and slowness. */
export const arbQueueSendFault: fc.Arbitrary<FaultSpec> = fc.oneof(arbLandedFault, arbAbsentFault, arbLatency);

export const arbReplicaFault = (context: ScenarioContext): fc.Arbitrary<FaultSpec> =>
  fc.constantFrom(
    faultSpec(REPLICA_KILL, {}),
    faultSpec(REPLICA_PAUSE, {}),
    // A replication endpoint shows its cut only to a sibling fetching from it.
    ...(everyShardReplicated(context) ? [faultSpec(INTERSERVER_CUT, {})] : []),
  );

/** Every shard has a sibling for each replica (two replicas or more). */
const everyShardReplicated = (context: Pick<ScenarioContext, 'description'>): boolean =>
  context.description.shards.every((shard) => shard.replicas.length >= 2);

/** What a quorum INSERT waits for, cut while it waits: its sibling stopped or killed, or its own replication endpoint. */
export const arbQuorumFault: fc.Arbitrary<FaultSpec> = fc.constantFrom(
  faultSpec(QUORUM_SIBLING_PAUSE, {}),
  faultSpec(QUORUM_SIBLING_KILL, {}),
  faultSpec(QUORUM_INTERSERVER_CUT, {}),
);

/** ZooKeeper paused, the Keeper links of the INSERT's replica (or of all replicas) cut, or slowed. */
export const arbKeeperFault = (context: ScenarioContext): fc.Arbitrary<FaultSpec> =>
  fc.oneof(arbFault(KEEPER_PAUSE, context), arbFault(KEEPER_LINK_CUT, context), arbFault(KEEPER_LINK_LATENCY, context));

/** Inside the server's INSERT path: the aimed INSERT's Keeper commit lost after its part was written (`../nemeses/FAILPOINTS.md`). */
export const arbServerWindowFault: fc.Arbitrary<FaultSpec> = fc.constant(faultSpec(COMMIT_KEEPER_CUT, {}));
