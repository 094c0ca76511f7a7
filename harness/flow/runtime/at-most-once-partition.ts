import type { AtMostOnceAck, AtMostOnceSink } from '../../../sinks/api.ts';
import type { DynamicParameters } from '../../../sinks/spec/sink-spec.ts';
import { HarnessError } from '../../errors.ts';
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
 * messages go to `sink.write`: a crash after the commit loses the epoch's messages and a
 * restart never offers them again, so no message can reach ClickHouse twice through the
 * runtime; within the write the sink itself never re-inserts a message whose INSERT started.
 * Acks (`delivered` / `acked-with-error` / `dropped` / `queued`) go to the history: `delivered`
 * acknowledges a message; a `queued` one (queue mode) is acknowledged once its own INSERT's
 * `insert-complete` says `ok`.
 */
export class AtMostOncePartition implements PartitionRuntime {
  private failure: ErrorFields | undefined;

  constructor(
    private readonly deps: PartitionDeps,
    private readonly sink: AtMostOnceSink,
  ) {}

  get partition(): number {
    return this.deps.partition;
  }

  async runEpoch(): Promise<EpochOutcome> {
    const { spec, partition, store, history, crash } = this.deps;
    if (this.failure) return { status: 'not-running', reason: this.failure.message };
    const { messages, range } = readNextEpoch(this.deps);
    const { epoch } = range;
    store.commitEpoch({ sink: spec.name, sinkClass: spec.sink_class_name, partition, ...range, batches: [] });
    const messageIds = messages.map((message) => message.id);
    history.append({
      type: 'epoch-commit',
      sink: spec.name,
      sinkClass: spec.sink_class_name,
      partition,
      ...range,
      messageIds,
      batches: [],
    });
    await crash.at('after-state', partition, epoch);

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
      // No per-message answer: none of them is acknowledged, and the committed epoch is not
      // offered again. The instance may be poisoned, so the partition stops until a restart.
      this.failure = errorFields(error);
      history.append({
        type: 'acks',
        sink: spec.name,
        partition,
        epoch,
        acks: messageIds.map((id) => ({ id, ack: 'acked-with-error' })),
        error: this.failure,
      });
      return { status: 'committed', ...range, batches: [] };
    }
    await crash.at('after-insert-before-state', partition, epoch);
    history.append({
      type: 'acks',
      sink: spec.name,
      partition,
      epoch,
      acks: messageIds.map((id, i) => ({ id, ack: acks[i] as AtMostOnceAck })),
    });
    return { status: 'committed', ...range, batches: [] };
  }

  /** Queue mode: waits until every queued message was sent or acked with an error. */
  drain(): Promise<void> {
    return this.sink.drain();
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
}
