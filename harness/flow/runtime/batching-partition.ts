import type { BatchingSink } from '../../../sinks/api.ts';
import type { TopologyFingerprints } from '../../../sinks/topology/topology-guard.ts';
import type { DynamicParameters } from '../../../sinks/spec/sink-spec.ts';
import { DeliveryLoop } from './delivery-loop.ts';
import {
  readNextEpoch,
  type EpochOutcome,
  type PartitionDeps,
  type PartitionRuntime,
  type PartitionStatus,
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
    const failure = this.delivery.failure;
    if (failure) return { status: 'not-running', reason: failure.message };
    const { progress, messages, range } = readNextEpoch(this.deps);
    const { epoch, toSeq } = range;
    const batches = this.sink.cut(messages, progress.nextBatch);
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

  status(): PartitionStatus {
    const { spec, partition, store } = this.deps;
    const failure = this.delivery.failure;
    return {
      partition,
      sinkClass: spec.sink_class_name,
      state: failure ? 'failed' : 'running',
      progress: store.progress(spec.name, partition),
      undelivered: store.undeliveredSummary(spec.name, partition).count,
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
