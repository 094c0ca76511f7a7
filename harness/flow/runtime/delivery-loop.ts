import type { BatchingSink, OutboxBatch } from '../../../sinks/index.ts';
import { HarnessError } from '../../base/index.ts';
import {
  errorFields,
  giveUpClaim,
  isGiveUp,
  retryOnGivenUpInstance,
  type PartitionDeps,
  type ErrorFields,
} from './partition-runtime.ts';

/**
 * The asynchronous delivery loop of a batching partition: inserts undelivered outbox batches
 * strictly in batch-number order (the ordered base sink: a batch completes before the next one
 * starts), then marks each delivered in its own transaction. A `deliver` that gives up stops
 * the loop for good: the sink instance is poisoned and only a restart (a new instance) resumes.
 */
export class DeliveryLoop {
  private running: Promise<void> | undefined;
  private woken = false;
  private paused: boolean;
  private failureValue: ErrorFields | undefined;

  constructor(
    private readonly deps: PartitionDeps,
    private readonly sink: BatchingSink,
    options: { readonly paused: boolean },
  ) {
    this.paused = options.paused;
  }

  get failure(): ErrorFields | undefined {
    return this.failureValue;
  }

  /** New batches were committed (or the loop was resumed): deliver them. */
  wake(): void {
    this.woken = true;
    if (this.running || this.paused || this.failureValue) return;
    this.running = (async () => {
      try {
        // Re-run while woken meanwhile, so a commit landing as a pass ends is not stranded.
        while (this.woken && !this.paused && !this.failureValue) {
          this.woken = false;
          await this.deliverAll();
        }
      } catch (error) {
        // A store failure (e.g. another worker marked the batch): the loop's own fault, not the sink's.
        this.failureValue = errorFields(error);
        this.deps.log.error({ err: error }, 'delivery loop failed');
      } finally {
        this.running = undefined;
      }
    })();
  }

  /** Resumes a paused loop and resolves once the outbox is empty; rejects if delivery gave up. */
  async drain(): Promise<void> {
    this.paused = false;
    this.wake();
    while (this.running) await this.running;
    if (this.failureValue) {
      throw new HarnessError(
        'FLOW_DELIVERY_FAILED',
        `Partition ${this.deps.partition} cannot drain: delivery gave up (${this.failureValue.message}); restart the worker to get a new sink instance`,
      );
    }
  }

  /** Stops taking new batches and waits for the one in flight. */
  async stop(): Promise<void> {
    this.paused = true;
    while (this.running) await this.running;
  }

  private async deliverAll(): Promise<void> {
    const { store, spec, partition, history, crash } = this.deps;
    for (;;) {
      const [next] = store.undelivered(spec.name, partition, 1);
      if (!next || this.paused) return;
      if (!(await this.deliverOne(next))) return;
      await crash.at('after-insert-before-state', partition, next.number);
      store.markDelivered(spec.name, partition, next.number);
      history.append({ type: 'delivered', sink: spec.name, partition, batch: next.number, token: next.token });
      await crash.at('after-state', partition, next.number);
    }
  }

  private async deliverOne(batch: OutboxBatch): Promise<boolean> {
    const { spec, partition, history, log } = this.deps;
    try {
      await this.sink.deliver(batch);
      return true;
    } catch (error) {
      this.failureValue = errorFields(error);
      const giveUp = giveUpClaim(error);
      history.append({
        type: 'delivery-failed',
        sink: spec.name,
        partition,
        batch: batch.number,
        token: batch.token,
        error: this.failureValue,
        ...(giveUp ? { giveUp } : {}),
      });
      log.warn({ batch: batch.number, err: error }, 'delivery gave up; partition stopped');
      if (isGiveUp(error)) await retryOnGivenUpInstance(this.deps, batch.number, () => this.sink.deliver(batch));
      return false;
    }
  }
}
