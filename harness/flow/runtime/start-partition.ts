import {
  type AnySink,
  type ResolveEndpoint,
  SINK_CLASSES,
  type SinkContext,
  type TopologyFingerprints,
} from '../../../sinks/index.ts';
import { HarnessError } from '../../base/index.ts';
import { streamSchema } from '../source/source-config.ts';
import { AtLeastOncePartition } from './at-least-once-partition.ts';
import { AtMostOncePartition } from './at-most-once-partition.ts';
import { BatchingPartition } from './batching-partition.ts';
import { errorFields, type PartitionDeps, type PartitionRuntime } from './partition-runtime.ts';
import { isOrderedMode, OutputMessages } from './output-messages.ts';
import { recordingObserver } from './recording-observer.ts';
import { RefusedPartition } from './refused-partition.ts';
import type { SinkFactory } from './sink-factory.ts';

export interface StartOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Spec host → address to dial (the embedded cluster's nodes all listen on 127.0.0.1). */
  readonly resolveEndpoint?: ResolveEndpoint;
  /** Batching: keep committed batches undelivered until `drain` (a deterministic backlog). */
  readonly deliveryPaused: boolean;
}

/**
 * Starts one partition job: snapshots its state into the history, creates the sink instance and,
 * for the batching classes, runs `init` against the persisted fingerprints and undelivered
 * outbox. A sink that cannot start yields a `RefusedPartition` and a `partition-refused` event
 * carrying the exact message; the other partitions are unaffected.
 */
export async function startPartition(
  deps: PartitionDeps,
  factory: SinkFactory,
  options: StartOptions,
): Promise<PartitionRuntime> {
  const { spec, partition, store, history, crash, gates, inserts, log } = deps;
  const progress = store.progress(spec.name, partition);
  const undelivered = store.undeliveredSummary(spec.name, partition);
  history.append({ type: 'state-snapshot', sink: spec.name, partition, ...progress, undelivered: undelivered.batches });

  const recording = recordingObserver(history, crash, gates, partition, inserts);
  const atMostOnce = kindOf(spec.sink_class_name) === 'at-most-once';
  const output = new OutputMessages(store, spec.name, partition);
  const pending = output.pending();
  // Like an outbox left by a batching class: kept as it is, unused by another class.
  if (!atMostOnce && pending.length > 0)
    log.warn(
      { pendingEpochs: pending.map((entry) => entry.epoch), sinkClass: spec.sink_class_name },
      'pending at-most-once output messages are ignored by this class',
    );
  const context: SinkContext = {
    partition,
    observer: atMostOnce ? output.observe(recording) : recording,
    onWarning: (warning) => history.append({ type: 'sink-warning', sink: spec.name, partition, ...warning }),
    env: options.env,
    streamSchema: streamSchema(deps.source.config),
    resolveEndpoint: options.resolveEndpoint,
    logger: log,
  };
  const refuse = async (error: unknown, sink?: AnySink): Promise<PartitionRuntime> => {
    const refusal = errorFields(error);
    history.append({
      type: 'partition-refused',
      sink: spec.name,
      sinkClass: spec.sink_class_name,
      partition,
      code: refusal.code ?? 'UNKNOWN',
      message: refusal.message,
    });
    log.warn({ code: refusal.code }, 'partition refused to start');
    await sink?.close().catch((closeError: unknown) => log.warn({ err: closeError }, 'closing a refused sink failed'));
    return new RefusedPartition(deps, refusal);
  };

  let sink: AnySink;
  try {
    sink = await factory.create(spec, context);
    const expected = kindOf(spec.sink_class_name);
    if (sink.kind !== expected) {
      throw new HarnessError(
        'FLOW_SINK_CONTRACT',
        `The factory built a ${sink.kind} sink for ${spec.sink_class_name}, which is ${expected}`,
      );
    }
  } catch (error) {
    return refuse(error);
  }

  let runtime: PartitionRuntime;
  let fingerprints: TopologyFingerprints | undefined;
  if (sink.kind === 'batching') {
    try {
      fingerprints = await sink.init({
        fingerprints: store.fingerprints(spec.name, partition),
        undelivered: store.undelivered(spec.name, partition),
      });
    } catch (error) {
      return refuse(error, sink);
    }
    runtime = new BatchingPartition(deps, sink, fingerprints, { deliveryPaused: options.deliveryPaused });
  } else {
    if (undelivered.count > 0) {
      // The seed: switching back from a batching class with undelivered state is not a safe
      // rollback. The outbox stays as it is (a later batching start still sees it), unused.
      log.warn(
        { undelivered: undelivered.count, sinkClass: spec.sink_class_name },
        'undelivered outbox batches are ignored by a non-batching class',
      );
    }
    runtime =
      sink.kind === 'at-least-once'
        ? new AtLeastOncePartition(deps, sink)
        : new AtMostOncePartition(deps, sink, output, isOrderedMode(spec.parameters));
  }
  history.append({
    type: 'partition-started',
    sink: spec.name,
    sinkClass: spec.sink_class_name,
    partition,
    ...(fingerprints
      ? { fingerprints: { routing: fingerprints.routing, targets: Object.fromEntries(fingerprints.targets) } }
      : {}),
  });
  return runtime;
}

function kindOf(sinkClass: keyof typeof SINK_CLASSES): AnySink['kind'] {
  const descriptor = SINK_CLASSES[sinkClass];
  if (descriptor.batching) return 'batching';
  return descriptor.guarantee === 'at-least-once' ? 'at-least-once' : 'at-most-once';
}
