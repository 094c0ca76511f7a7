import type { AtMostOnceAck, AtMostOnceSink, DynamicParameters, SinkMessage } from '../../../sinks/index.ts';
import { HarnessError } from '../../base/index.ts';
import type { OutputMessages } from './output-messages.ts';
import {
  errorFields,
  readNextEpoch,
  statusWithoutOutbox,
  type EpochOutcome,
  type PartitionDeps,
  type PartitionRuntime,
  type PartitionStatus,
  type ErrorFields,
} from './partition-runtime.ts';

/**
 * A partition of the at-most-once class. The epoch's input progress commits FIRST, then the
 * messages go to `sink.write`, and within the write the sink never re-inserts a message whose
 * INSERT started. The two strategy modes differ in what the commit keeps:
 * - ordered: the epoch's messages are committed into `output_messages` and leave it only when
 *   their INSERT is about to start, so a crash or a failed session start before that leaves them
 *   pending, and a later worker delivers them first, in order, as soon as it starts;
 * - queue: nothing is kept; messages in the in-memory queue die with the worker. Pending
 *   messages an ordered-mode worker left behind are still delivered (they were promised).
 * Acks (`delivered` / `acked-with-error` / `dropped` / `queued`) go to the history: `delivered`
 * acknowledges a message; a `queued` one is acknowledged once its own INSERT's
 * `insert-complete` says `ok`.
 */
export class AtMostOncePartition implements PartitionRuntime {
  private failure: ErrorFields | undefined;
  /** The pending messages a previous worker left, being delivered since this one started. */
  private readonly backlog: Promise<void>;

  constructor(
    private readonly deps: PartitionDeps,
    private readonly sink: AtMostOnceSink,
    private readonly output: OutputMessages,
    private readonly ordered: boolean,
  ) {
    this.backlog = this.deliverPending().catch((error: unknown) => {
      this.failure = errorFields(error);
    });
  }

  get partition(): number {
    return this.deps.partition;
  }

  async runEpoch(): Promise<EpochOutcome> {
    const { spec, partition, store, history, crash } = this.deps;
    await this.backlog;
    if (this.failure) return { status: 'not-running', reason: this.failure.message };
    const { messages, range } = readNextEpoch(this.deps);
    const { epoch } = range;
    const kept = this.ordered ? { output: messages } : {};
    store.commitEpoch({ sink: spec.name, sinkClass: spec.sink_class_name, partition, ...range, batches: [], ...kept });
    history.append({
      type: 'epoch-commit',
      sink: spec.name,
      sinkClass: spec.sink_class_name,
      partition,
      ...range,
      messageIds: messages.map((message) => message.id),
      batches: [],
    });
    await crash.at('after-state', partition, epoch);
    if (this.ordered) await this.deliverPending();
    else await this.write(epoch, messages);
    return { status: 'committed', ...range, batches: [] };
  }

  /** Delivers what `output_messages` holds, then waits for the queue (queue mode). */
  async drain(): Promise<void> {
    await this.backlog;
    await this.deliverPending();
    await this.sink.drain();
  }

  status(): PartitionStatus {
    return statusWithoutOutbox(this.deps, this.failure);
  }

  reconfigure(dynamic: DynamicParameters): Promise<void> {
    return this.sink.reconfigure(dynamic);
  }

  close(): Promise<void> {
    return this.sink.close();
  }

  /** Writes what `output_messages` holds, oldest epoch first, until a write fails. */
  private async deliverPending(): Promise<void> {
    for (const { epoch, messages } of this.output.pending()) {
      if (this.failure !== undefined) return;
      await this.write(epoch, messages);
    }
  }

  private async write(epoch: number, messages: readonly SinkMessage[]): Promise<void> {
    const { spec, partition, history, crash } = this.deps;
    let acks: readonly AtMostOnceAck[];
    try {
      acks = await this.sink.write(messages);
      if (acks.length !== messages.length) {
        throw new HarnessError(
          'FLOW_SINK_CONTRACT',
          `${spec.sink_class_name} answered ${acks.length} acks for ${messages.length} messages; write must ack every message in order`,
        );
      }
    } catch (error) {
      // No per-message answer. A message whose INSERT started is acknowledged with the error; an
      // ordered-mode one that never reached an INSERT stays pending for the next instance. The
      // instance may be poisoned, so the partition stops until a restart.
      this.failure = errorFields(error);
      const started = messages.filter((message) => this.output.hasStarted(message));
      history.append({
        type: 'acks',
        sink: spec.name,
        partition,
        epoch,
        acks: started.map((message) => ({ id: message.id, ack: 'acked-with-error' })),
        error: this.failure,
      });
      return;
    }
    await crash.at('after-insert-before-state', partition, epoch);
    history.append({
      type: 'acks',
      sink: spec.name,
      partition,
      epoch,
      acks: messages.map((message, i) => ({ id: message.id, ack: acks[i] as AtMostOnceAck })),
    });
  }
}
