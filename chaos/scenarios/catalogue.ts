import fc from 'fast-check';
import { arbSinkSpec, type RawSinkSpec, type SpecTarget } from '../../properties/arbitraries/arb-sink-spec.ts';
import { arbWorkload } from '../../properties/arbitraries/arb-workload.ts';
import { Drain, WriteEpochs } from '../../properties/model/commands.ts';
import { SINK_CLASS_NAMES, type SinkClassName } from '../../sinks/domain/sink-class-name.ts';
import { SINK_CLASSES } from '../../sinks/sink-classes.ts';
import { arbDegradationFault, arbKeeperFault, arbOpenConnectionFault, arbReplicaFault, arbUnknownOutcomeFault } from './fault-arbitraries.ts';
import type { ScenarioDefinition } from './scenario.ts';
import { arbCrashSchedule, arbFaultSchedule, arbReconfigureSchedule } from './schedules.ts';
import { topologyGuardScenario } from './topology-guard.ts';

const exactlyOnce = (sinkClass: SinkClassName) => SINK_CLASSES[sinkClass].guarantee === 'exactly-once';
const replays = (sinkClass: SinkClassName) => SINK_CLASSES[sinkClass].guarantee !== 'at-most-once';

/**
 * At-most-once in queue mode with a queue of 256-512 bytes, fed epochs of at least ten messages
 * of 64-108 bytes: every epoch overflows the queue, and a few messages of it are sent (one
 * INSERT each) while the faults hit the sends.
 */
const smallQueueSpecs = (target: SpecTarget): fc.Arbitrary<RawSinkSpec> =>
  fc.record({ spec: arbSinkSpec(target), limit: fc.integer({ min: 256, max: 512 }) }).map(({ spec, limit }) => ({
    ...spec,
    parameters: { ...spec.parameters, at_most_once_strategy: { enabled: true } },
    dynamic_parameters: { ...spec.dynamic_parameters, at_most_once_strategy: { total_queue_bytes_limit: limit } },
  }));

/** The core catalogue: every class against every fault family, plus the topology guard. */
export const CATALOGUE: readonly ScenarioDefinition[] = [
  {
    name: 'unknown-outcome',
    description: 'reset_peer, limit_data or a downstream timeout on the sink\'s client links: INSERTs commit but the answer is lost',
    classes: SINK_CLASS_NAMES,
    runs: { ci: 2, full: 8 },
    commands: (context) => arbFaultSchedule(arbUnknownOutcomeFault(context)),
    coverage: (sinkClass) => ({ unknownOutcome: true, replay: replays(sinkClass), dedupHit: exactlyOnce(sinkClass) }),
  },
  {
    name: 'network-degradation',
    description: 'latency, bandwidth, slicer, proxy down and a stalled upstream on the client links',
    classes: SINK_CLASS_NAMES,
    runs: { ci: 1, full: 6 },
    commands: (context) => arbFaultSchedule(arbDegradationFault(context)),
    coverage: () => ({}),
  },
  {
    name: 'replica-faults',
    description: 'SIGKILL or SIGSTOP of a replica the sink writes to, or its replication endpoint cut',
    classes: SINK_CLASS_NAMES,
    runs: { ci: 1, full: 6 },
    commands: (context) => arbFaultSchedule(arbReplicaFault(context), 2),
    coverage: () => ({}),
  },
  {
    name: 'keeper-faults',
    description: 'ZooKeeper paused, or the Keeper links of one replica or of all replicas cut',
    classes: SINK_CLASS_NAMES,
    runs: { ci: 1, full: 6 },
    commands: (context) => arbFaultSchedule(arbKeeperFault(context), 1),
    coverage: () => ({}),
  },
  {
    name: 'sink-crash',
    description: 'the sink process SIGKILLed at before-insert, during-insert, after-insert-before-state or after-state, then restarted from its store',
    classes: SINK_CLASS_NAMES,
    runs: { ci: 2, full: 8 },
    commands: () => arbCrashSchedule(),
    coverage: (sinkClass) => ({ replay: replays(sinkClass) }),
  },
  {
    name: 'live-reconfigure',
    description: 'the dynamic section changed on the running sink while INSERTs are in flight (new clients for a new write_timeout, new retry and batch limits), between unknown-outcome faults',
    classes: SINK_CLASS_NAMES,
    runs: { ci: 1, full: 6 },
    commands: (context) => arbReconfigureSchedule(context.spec.sink_class_name as SinkClassName, arbUnknownOutcomeFault(context)),
    coverage: (sinkClass) => ({ reconfiguredInFlight: true, unknownOutcome: true, replay: replays(sinkClass), dedupHit: exactlyOnce(sinkClass) }),
  },
  {
    name: 'at-most-once-queue',
    description: 'at-most-once in queue mode with a queue of a few messages: overflow drops while limit_data, timeout or latency hit the sends on every client link',
    classes: ['AtMostOnceClickHouseSink'],
    specs: smallQueueSpecs,
    workload: arbWorkload({ minMessagesPerEpoch: 10, maxPayloadBytes: 48 }),
    partitions: 1,
    runs: { ci: 1, full: 6 },
    // The first write is drained, so the write session is open before any fault: faults then meet INSERTs.
    commands: (context) => arbFaultSchedule(arbOpenConnectionFault(context)).map((schedule) => [new WriteEpochs(1), new Drain([0]), ...schedule]),
    coverage: () => ({ queueDrop: true }),
  },
  topologyGuardScenario,
];

export function findScenarios(names: readonly string[] | undefined): ScenarioDefinition[] {
  if (names === undefined || names.length === 0) return [...CATALOGUE];
  return names.map((name) => {
    const found = CATALOGUE.find((scenario) => scenario.name === name);
    if (found === undefined) throw new Error(`unknown scenario '${name}'; the catalogue has ${CATALOGUE.map((s) => s.name).join(', ')}`);
    return found;
  });
}
