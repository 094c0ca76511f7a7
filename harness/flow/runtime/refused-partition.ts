import { HarnessError } from '../../base/index.ts';
import type {
  EpochOutcome,
  ErrorFields,
  PartitionDeps,
  PartitionRuntime,
  PartitionStatus,
} from './partition-runtime.ts';

/**
 * A partition whose sink could not start (its `init` threw, e.g. the topology guard): it makes no
 * progress in this worker. The original's controller restarts the job and it fails again on
 * every start; here every new worker re-runs `init` and refuses again until the spec is restored.
 */
export class RefusedPartition implements PartitionRuntime {
  constructor(
    private readonly deps: PartitionDeps,
    private readonly refusal: ErrorFields,
  ) {}

  get partition(): number {
    return this.deps.partition;
  }

  async runEpoch(): Promise<EpochOutcome> {
    return { status: 'not-running', reason: this.refusal.message };
  }

  /** Its undelivered batches cannot go anywhere from here: draining means restoring the spec first. */
  async drain(): Promise<void> {
    throw new HarnessError(
      'FLOW_PARTITION_REFUSED',
      `Partition ${this.deps.partition} cannot drain: its sink refused to start (${this.refusal.message.split('\n')[0]})`,
    );
  }

  status(): PartitionStatus {
    const { spec, partition, store } = this.deps;
    return {
      partition,
      sinkClass: spec.sink_class_name,
      state: 'refused',
      progress: store.progress(spec.name, partition),
      undelivered: store.undeliveredSummary(spec.name, partition).count,
      messagesWritten: this.deps.inserts.messagesWritten,
      reason: this.refusal.message,
      code: this.refusal.code,
    };
  }

  async reconfigure(): Promise<void> {}

  async close(): Promise<void> {}
}
