import type { BatchingSink, DynamicParameters, TopologyFingerprints } from '../../../sinks/index.ts';
import { DeliveryLoop } from './delivery-loop.ts';
import {
  errorFields,
  readNextEpoch,
  type EpochOutcome,
  type PartitionDeps,
  type PartitionRuntime,
  type PartitionStatus,
  type ErrorFields,
} from './partition-runtime.ts';

/**
 * A partition of an exactly-once batching class. An epoch is read, cut into batches by the sink
 * (the partial batch is flushed at the epoch's end, so batches never span epochs and a replayed
 * epoch cuts the same batches), and committed — outbox batches, input progress and the
 * fingerprints `init` returned — in ONE transaction. Only committed batches are ever delivered,
 * so a batch's content and token are fixed the moment it exists.
 */
export class BatchingPartition implements PartitionRuntime {
  private readonly delivery: DeliveryLoop;
  /** `cut` threw: the epoch job failed, as in Flow, and the partition stops until a restart. */
  private cutFailure: ErrorFields | undefined;

  constructor(
    private readonly deps: PartitionDeps,
    private readonly sink: BatchingSink,
    private readonly fingerprints: TopologyFingerprints,
    options: { readonly deliveryPaused: boolean },
  ) {
    this.delivery = new DeliveryLoop(deps, sink, { paused: options.deliveryPaused });
    // Replay what the previous worker left undelivered.
    this.delivery.wake();
  }

  get partition(): number {
    return this.deps.partition;
  }

  async runEpoch(): Promise<EpochOutcome> {
    const { spec, partition, store, history } = this.deps;
    const failure = this.failure;
    if (failure) return { status: 'not-running', reason: failure.message };
    const { progress, messages, range } = readNextEpoch(this.deps);
    const { epoch, toSeq } = range;
    let batches: ReturnType<BatchingSink['cut']>;
    try {
      batches = this.sink.cut(messages, progress.nextBatch);
    } catch (error) {
      // A sink's own failure, recorded for the checkers (nothing is committed), not a harness error.
      this.cutFailure = errorFields(error);
      history.append({ type: 'epoch-failed', sink: spec.name, partition, ...range, error: this.cutFailure });
      this.deps.log.warn({ epoch, err: error }, 'the sink failed to cut the epoch; epoch not committed');
      return { status: 'failed', ...range, error: this.cutFailure.message };
    }
    store.commitEpoch({
      sink: spec.name,
      sinkClass: spec.sink_class_name,
      partition,
      epoch,
      fromSeq: progress.nextSeq,
      toSeq,
      batches,
      fingerprints: this.fingerprints,
    });
    history.append({
      type: 'epoch-commit',
      sink: spec.name,
      sinkClass: spec.sink_class_name,
      partition,
      epoch,
      fromSeq: progress.nextSeq,
      toSeq,
      messageIds: messages.map((message) => message.id),
      batches: batches.map((batch) => ({ number: batch.number, token: batch.token, messages: batch.messages.length })),
    });
    this.delivery.wake();
    return {
      status: 'committed',
      epoch,
      fromSeq: progress.nextSeq,
      toSeq,
      batches: batches.map((batch) => batch.number),
    };
  }

  drain(): Promise<void> {
    return this.delivery.drain();
  }

  private get failure(): ErrorFields | undefined {
    return this.cutFailure ?? this.delivery.failure;
  }

  status(): PartitionStatus {
    const { spec, partition, store } = this.deps;
    const failure = this.failure;
    return {
      partition,
      sinkClass: spec.sink_class_name,
      state: failure ? 'failed' : 'running',
      progress: store.progress(spec.name, partition),
      undelivered: store.undeliveredSummary(spec.name, partition).count,
      messagesWritten: this.deps.inserts.messagesWritten,
      ...(failure ? { reason: failure.message, code: failure.code } : {}),
    };
  }

  reconfigure(dynamic: DynamicParameters): Promise<void> {
    return this.sink.reconfigure(dynamic);
  }

  async close(): Promise<void> {
    await this.delivery.stop();
    await this.sink.close();
  }
}
