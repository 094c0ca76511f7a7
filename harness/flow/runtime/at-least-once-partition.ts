import type { AtLeastOnceSink, DynamicParameters } from '../../../sinks/index.ts';
import {
  errorFields,
  giveUpClaim,
  isGiveUp,
  readNextEpoch,
  retryOnGivenUpInstance,
  statusWithoutOutbox,
  type EpochOutcome,
  type PartitionDeps,
  type PartitionRuntime,
  type PartitionStatus,
  type ErrorFields,
} from './partition-runtime.ts';

/**
 * A partition of the at-least-once class: the epoch's rows are written synchronously BEFORE the
 * epoch commits. A failed write leaves the epoch uncommitted — the next attempt (after the
 * restart a failed partition job needs) reads and writes the same messages again — so nothing
 * is lost, and a crash between a landed write and the commit duplicates the epoch.
 */
export class AtLeastOncePartition implements PartitionRuntime {
  private failure: ErrorFields | undefined;

  constructor(
    private readonly deps: PartitionDeps,
    private readonly sink: AtLeastOnceSink,
  ) {}

  get partition(): number {
    return this.deps.partition;
  }

  async runEpoch(): Promise<EpochOutcome> {
    const { spec, partition, store, history, crash } = this.deps;
    if (this.failure) return { status: 'not-running', reason: this.failure.message };
    const { messages, range } = readNextEpoch(this.deps);
    const { epoch } = range;
    try {
      await this.sink.writeEpoch(epoch, messages);
    } catch (error) {
      // The partition job fails, as in Flow: the instance may be poisoned, so only a restart
      // (a new sink instance) processes the epoch again.
      this.failure = errorFields(error);
      const giveUp = giveUpClaim(error);
      history.append({
        type: 'epoch-failed',
        sink: spec.name,
        partition,
        ...range,
        error: this.failure,
        ...(giveUp ? { giveUp } : {}),
      });
      this.deps.log.warn({ epoch, err: error }, 'epoch write failed; epoch not committed');
      if (isGiveUp(error)) await retryOnGivenUpInstance(this.deps, epoch, () => this.sink.writeEpoch(epoch, messages));
      return { status: 'failed', ...range, error: this.failure.message };
    }
    await crash.at('after-insert-before-state', partition, epoch);
    store.commitEpoch({ sink: spec.name, sinkClass: spec.sink_class_name, partition, ...range, batches: [] });
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
    return { status: 'committed', ...range, batches: [] };
  }

  async drain(): Promise<void> {}

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
