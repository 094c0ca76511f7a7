import fc from 'fast-check';
import {
  arbSinkSpec,
  boundariesOf,
  boundarySpecs,
  clusterEndpoints,
  type ClusterEndpoints,
  type RawSinkSpec,
  type SpecBoundary,
  type SpecTarget,
} from '../../properties/arbitraries/index.ts';
import { SINK_CLASS_NAMES, SINK_CLASSES, type SinkClassName } from '../../sinks/index.ts';
import {
  arbDegradationFault,
  arbKeeperFault,
  arbQueueSendFault,
  arbQuorumFault,
  arbReplicaFault,
  arbServerWindowFault,
} from './fault-arbitraries.ts';
import { SHORT_WINDOW_REPLAY_HORIZON, type Profile, type ScenarioDefinition } from './scenario.ts';
import {
  arbCrashSchedule,
  arbDedupWindowSchedule,
  arbDrainedFaultSchedule,
  arbKeeperEnsembleSchedule,
  arbFaultSchedule,
  arbFaultScheduleWithRestarts,
  arbServerErrorSchedule,
  arbReconfigureSchedule,
  arbUnknownOutcomeSchedule,
  inBothStrategyModes,
  arbRetryChainSchedule,
} from './schedules.ts';
import { overlappingFaultsScenario } from './overlapping-faults.ts';
import { topologyGuardScenario } from './topology-guard.ts';

const exactlyOnce = (sinkClass: SinkClassName) => SINK_CLASSES[sinkClass].guarantee === 'exactly-once';
const replays = (sinkClass: SinkClassName) => SINK_CLASSES[sinkClass].guarantee !== 'at-most-once';

/**
 * At-most-once in queue mode with a queue of 256-512 bytes, fed epochs of at least ten messages
 * of 64-108 bytes: every epoch overflows the queue, and a few messages of it are sent (one
 * INSERT each) while the faults hit the sends.
 */
const smallQueueSpecs = (target: SpecTarget): fc.Arbitrary<RawSinkSpec> =>
  fc
    .record({
      spec: arbSinkSpec(target, { keyColumnSets: [['key']] }),
      limit: fc.integer({ min: 256, max: 512 }),
    })
    .map(({ spec, limit }) => ({
      ...spec,
      parameters: { ...spec.parameters, at_most_once_strategy: { enabled: true } },
      dynamic_parameters: { ...spec.dynamic_parameters, at_most_once_strategy: { total_queue_bytes_limit: limit } },
    }));

/**
 * The spec boundaries a server error can meet: all of the class's but a queue of one byte, which
 * drops every message before an INSERT could carry the error (so the error paired with it would
 * fire nowhere).
 */
const serverErrorBoundaries = (sinkClass: SinkClassName, endpoints?: ClusterEndpoints): SpecBoundary[] =>
  boundariesOf(sinkClass, endpoints).filter(
    (boundary) => boundary !== 'at-most-once queue of 1 byte (below any message)',
  );

/**
 * The server-window INSERT is held ~5 s before its commit (`rmt_delay_commit_part`) and answered
 * within ~6.5 s (measured): the sink must hear the server's answer, not its own timeout.
 */
const SERVER_WINDOW_WRITE_TIMEOUT_MS = 12_000;

/** Epochs of at most 24 messages, for the scenarios whose specs change mid-run to limits of a row or a byte. */
const SMALL_EPOCHS = { maxMessagesPerEpoch: 24 };

/** The core catalogue: every class against every fault family, plus the topology guard. */
export const CATALOGUE: readonly ScenarioDefinition[] = [
  {
    name: 'unknown-outcome',
    description:
      'both kinds of unknown outcome, aimed at INSERTs: the answer cut after the commit (reset_peer, limit_data, a response timeout), and the request swallowed before the server saw it (a request timeout)',
    classes: SINK_CLASS_NAMES,
    // At-most-once runs it in both strategy modes: its two ways of never sending a message twice.
    commands: (context) =>
      SINK_CLASSES[context.spec.sink_class_name as SinkClassName].atMostOnceStrategy
        ? inBothStrategyModes(context.spec, arbUnknownOutcomeSchedule())
        : arbUnknownOutcomeSchedule(),
    coverage: (sinkClass) => ({
      unknownLanded: true,
      unknownAbsent: true,
      replay: replays(sinkClass),
      dedupHit: exactlyOnce(sinkClass),
      unknownRetriedSameToken: exactlyOnce(sinkClass),
    }),
  },
  {
    name: 'retry-under-fault',
    description:
      "faults on consecutive attempts of one INSERT: its answer cut after it committed, then one or two more unknown outcomes (the answer cut, or the request swallowed) on the sink's retries of that same batch, each healed before the sink saw its outcome",
    // At-most-once never retries an INSERT that started: it has no retry for a later link to meet.
    classes: SINK_CLASS_NAMES.filter(replays),
    commands: () => arbRetryChainSchedule(),
    coverage: (sinkClass) => ({
      retryMetFault: true,
      unknownLanded: true,
      replay: true,
      dedupHit: exactlyOnce(sinkClass),
    }),
  },
  {
    name: 'network-degradation',
    description:
      'latency, bandwidth, slicer, the proxy down or a stalled request on the link of the INSERT they are aimed at',
    classes: SINK_CLASS_NAMES,
    commands: () => arbFaultSchedule(arbDegradationFault),
    coverage: () => ({}),
  },
  {
    name: 'replica-faults',
    description:
      "SIGKILL or SIGSTOP of the replica an INSERT goes to, or its replication endpoint cut while its siblings must fetch the INSERT's part",
    classes: SINK_CLASS_NAMES,
    commands: (context) => arbFaultSchedule(arbReplicaFault(context), 2),
    processActions: ['kill', 'start', 'pause', 'resume'],
    coverage: () => ({}),
  },
  {
    name: 'keeper-faults',
    description:
      "ZooKeeper paused, the Keeper links of the INSERT's replica or of all replicas cut, or the INSERT's replica's Keeper links slowed (keeper_link_latency), while an INSERT needs Keeper",
    classes: SINK_CLASS_NAMES,
    commands: (context) => arbFaultSchedule(arbKeeperFault(context), 1),
    processActions: ['pause', 'resume'],
    coverage: () => ({}),
  },
  {
    name: 'sink-crash',
    description:
      'the sink process SIGKILLed at before-insert, during-insert, after-insert-before-state or after-state, then restarted from its store',
    classes: SINK_CLASS_NAMES,
    // At-most-once keeps pending messages in ordered mode and none in queue mode: both are crashed.
    commands: (context) =>
      SINK_CLASSES[context.spec.sink_class_name as SinkClassName].atMostOnceStrategy
        ? inBothStrategyModes(context.spec, arbCrashSchedule())
        : arbCrashSchedule(),
    coverage: (sinkClass) => ({ replay: replays(sinkClass) }),
  },
  {
    name: 'live-reconfigure',
    description:
      'the dynamic section changed on the running sink while an INSERT is in flight (new clients for a new write_timeout, new retry and batch limits), between both kinds of unknown outcome',
    classes: SINK_CLASS_NAMES,
    // Small epochs: a new dynamic section may cut batches of one row, which a large epoch would
    // turn into hundreds of INSERTs (the drawn spec is kept to a few batches per epoch, a new one is not).
    workload: SMALL_EPOCHS,
    commands: (context) => arbReconfigureSchedule(context.spec.sink_class_name as SinkClassName),
    coverage: (sinkClass) => ({
      reconfiguredInFlight: true,
      unknownLanded: true,
      unknownAbsent: true,
      replay: replays(sinkClass),
      dedupHit: exactlyOnce(sinkClass),
    }),
  },
  {
    name: 'server-errors',
    description:
      "every replica refuses INSERTs into the run's tables with each server error the seed calls unclassified in turn (TOO_MANY_PARTS, NOT_ENOUGH_SPACE, the table detached, a constraint no row meets, ClickHouse's part-writer failpoint), until the sink's retries ended: the batching and at-least-once classes give up after max_insert_attempts attempts and refuse the retry on the same instance, at-most-once acknowledges with an error; after each, the operator's restart (a new instance) delivers what was held back",
    classes: SINK_CLASS_NAMES,
    // Small epochs: the boundaries include one row per batch, and every partition is drained on each.
    workload: SMALL_EPOCHS,
    // Every run meets the errors on each spec boundary of the class too (a retry budget of one
    // attempt, each host form, the batch limits' and the strategy's edges), never left to a draw.
    commands: (context) => {
      const endpoints = clusterEndpoints(context.description);
      const sinkClass = context.spec.sink_class_name as SinkClassName;
      const onBoundaries = boundarySpecs(context.spec, serverErrorBoundaries(sinkClass, endpoints), endpoints);
      return arbServerErrorSchedule(context.spec, context.ownsCluster, onBoundaries);
    },
    coverage: (sinkClass, description) => ({
      giveUp: SINK_CLASSES[sinkClass].guarantee !== 'at-most-once',
      boundaries: serverErrorBoundaries(sinkClass, description && clusterEndpoints(description)),
    }),
  },
  {
    name: 'plain-merge-tree',
    description:
      'a plain MergeTree table on one host per shard, with non_replicated_deduplication_window on every other run, under both kinds of unknown outcome: with the window exactly-once holds through the token; without it the seed degrades exactly-once to at-least-once, and every class must warn so',
    classes: SINK_CLASS_NAMES,
    target: 'single-host-merge-tree',
    commands: () => arbUnknownOutcomeSchedule(),
    coverage: (sinkClass) => ({
      unknownLanded: true,
      unknownAbsent: true,
      replay: replays(sinkClass),
      // Both tables: the one that keeps the token's dedup, and the degraded one.
      dedupHit: exactlyOnce(sinkClass),
      serverDedupOff: true,
      serverDedupOn: true,
    }),
  },
  {
    name: 'dedup-window',
    description:
      "an INSERT's answer cut after it committed, and its replay held until the other partition wrote past the table's dedup window: 1 s on every other run, where the sink must warn that the window is shorter than replay_horizon and exactly-once is owed only as at-least-once; the server's hour on the others, where the replay is deduplicated",
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    target: 'short-dedup-window',
    partitions: 2,
    specs: (target) =>
      arbSinkSpec(target).map((spec) => ({
        ...spec,
        dynamic_parameters: { ...spec.dynamic_parameters, replay_horizon: SHORT_WINDOW_REPLAY_HORIZON },
      })),
    commands: () => arbDedupWindowSchedule(),
    coverage: () => ({
      unknownLanded: true,
      replay: true,
      // Both tables: the short window let a replay in again, the hour-long one dropped it.
      windowExceeded: true,
      dedupHit: true,
      serverDedupOff: true,
      serverDedupOn: true,
    }),
  },
  {
    name: 'at-most-once-queue',
    description:
      'at-most-once in queue mode with a queue of a few messages: overflow drops while unknown outcomes of both kinds and latency hit the sends',
    classes: ['AtMostOnceClickHouseSink'],
    specs: smallQueueSpecs,
    // Small messages, no typed columns: the queue of a few messages must fill and drop.
    workload: { minMessagesPerEpoch: 10, maxPayloadBytes: 48, untyped: true },
    partitions: 1,
    commands: () => arbDrainedFaultSchedule(arbQueueSendFault),
    coverage: () => ({ queueDrop: true }),
  },
  {
    name: 'server-windows',
    description:
      "inside the server's own INSERT path (failpoints): the aimed INSERT's part is written, its replica is cut from Keeper before the commit, and the server answers UNKNOWN_STATUS_OF_INSERT with the commit never made (\"Data was written locally\"); the part is dropped, as ClickHouse's part check does, and the sink's replay under the same token must deliver it",
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    // One partition: one INSERT at a time, so the window's INSERT is the aimed one, not a neighbour's.
    partitions: 1,
    settingProfile: () => 'keeper_retries_short',
    specs: (target) =>
      arbSinkSpec(target).map((spec) => ({
        ...spec,
        dynamic_parameters: { ...spec.dynamic_parameters, write_timeout: SERVER_WINDOW_WRITE_TIMEOUT_MS },
      })),
    // A failpoint is node-wide: on a cluster someone else owns the windows are never armed.
    ownedClusterOnly: true,
    commands: () => arbFaultSchedule(arbServerWindowFault, 1),
    coverage: () => ({ unknownStatus: true, unknownAbsent: true, replay: true }),
  },
  quorumScenario('quorum_sequential'),
  quorumScenario('quorum_parallel'),
  overlappingFaultsScenario,
  {
    name: 'materialized-view',
    description:
      "a materialized view behind the target (events_mv into events_view_rep), both kinds of unknown outcome aimed at INSERTs; the sink's user keeps the view's block dedup on every other run and turns it off (deduplicate_blocks_in_dependent_materialized_views = 0) on the others: the view is judged too, owed exactly-once only where its blocks are deduplicated",
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    target: 'replicated-with-view',
    settingProfile: (dedupOff) => (dedupOff ? 'view_dedup_off' : undefined),
    profiles: ['full'],
    commands: () => arbUnknownOutcomeSchedule(),
    coverage: () => ({
      unknownLanded: true,
      replay: true,
      dedupHit: true,
      // Both settings, and the failure mode itself: a replay the table dropped reached the view.
      serverDedupOff: true,
      serverDedupOn: true,
      viewReceivedReplay: true,
    }),
  },
  {
    name: 'keeper-ensemble',
    description:
      "a three-member ZooKeeper ensemble, each fault aimed at an INSERT in a drawn order: the leader paused, the leader killed (writes wait for an election), a majority paused (no quorum: the INSERT hangs past the sink's timeout and is recorded unknown), and the INSERT's replica cut from every member while the ensemble stays healthy",
    classes: SINK_CLASS_NAMES,
    keepers: 3,
    profiles: ['full'],
    processActions: ['kill', 'start', 'pause', 'resume'],
    commands: () => arbKeeperEnsembleSchedule(),
    coverage: () => ({}),
  },
  topologyGuardScenario,
];

/**
 * Quorum inserts (seed 004; ClickHouse #81260, #76579): the sink's user carries insert_quorum =
 * every replica of the shard, sequential or parallel, and each fault stops what the quorum waits
 * for while the INSERT waits; the server answers UNKNOWN_STATUS_OF_INSERT with its part in, and
 * the sink's replay under the same token must not duplicate it.
 */
function quorumScenario(profile: 'quorum_sequential' | 'quorum_parallel'): ScenarioDefinition {
  return {
    name: profile.replace('_', '-'),
    description: `the sink's user inserts with insert_quorum = every replica of the shard (insert_quorum_parallel = ${profile === 'quorum_parallel' ? 1 : 0}, a 2 s quorum timeout), and while an INSERT waits for its quorum its sibling is stopped or killed, or its own replication endpoint is cut: the server answers UNKNOWN_STATUS_OF_INSERT with the part committed locally, and the replay under the same token must not duplicate it`,
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    settingProfile: () => profile,
    processActions: ['kill', 'start', 'pause', 'resume'],
    replicasPerShard: 2,
    // Under a sequential quorum a fault waits for an INSERT alone on its shard: two partitions at most.
    ...(profile === 'quorum_sequential' ? { workload: { maxPartitions: 2 } } : {}),
    // A sequential quorum refuses the other partitions' INSERTs while one awaits its quorum: their
    // retry budget may run out, and the operator restarts the sink as the seed says.
    commands: () => arbFaultScheduleWithRestarts(arbQuorumFault, 2),
    coverage: () => ({ unknownStatus: true, unknownLanded: true, replay: true, dedupHit: true }),
  };
}

/**
 * The scenarios named, in the order given (any profile's), or without names every scenario the
 * profile runs (without a profile: the whole catalogue).
 */
export function findScenarios(names: readonly string[] | undefined, profile?: Profile): ScenarioDefinition[] {
  if (names === undefined || names.length === 0)
    return CATALOGUE.filter((scenario) => profile === undefined || (scenario.profiles?.includes(profile) ?? true));
  return names.map((name) => {
    const found = CATALOGUE.find((scenario) => scenario.name === name);
    if (found === undefined)
      throw new Error(`unknown scenario '${name}'; the catalogue has ${CATALOGUE.map((s) => s.name).join(', ')}`);
    return found;
  });
}
