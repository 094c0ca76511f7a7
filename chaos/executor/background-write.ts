import type { StartedFlowWorker } from '../../harness/flow/index.ts';
import { isHarnessError, withTimeout } from '../../harness/base/index.ts';

const WRITE_LIMIT_MS = 120_000;

/**
 * The work's result, or the signal's reason as soon as it aborts: the caller unwinds at once (its
 * own cleanup stops what the work started), and the work's later failure is never unhandled.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * A drain that ends because the sink refused to start (the topology guard) or gave up: the sink's
 * own behaviour, recorded in the history and judged by the checkers, never a harness failure.
 */
function isSinkOutcome(error: unknown): boolean {
  return isHarnessError(error, 'FLOW_PARTITION_REFUSED') || isHarnessError(error, 'FLOW_DELIVERY_FAILED');
}

/** Delivers what the running partitions hold; a refused or given-up partition is left as the sink left it. */
export async function drainRunning(worker: StartedFlowWorker, partitions?: readonly number[]): Promise<void> {
  const running = (await worker.status()).filter(
    (status) => status.state === 'running' && (partitions === undefined || partitions.includes(status.partition)),
  );
  try {
    await worker.drain(running.map((status) => status.partition));
  } catch (error) {
    if (!isSinkOutcome(error)) throw error;
  }
}

/**
 * Epochs and their asynchronous delivery (outbox, at-most-once queue) running while the executor
 * does something else (aims a fault, reconfigures); settled into a value at once, so a rejection
 * meanwhile is never unhandled.
 */
export class BackgroundWrite {
  /** Resolves (never rejects) when the writes are over, whatever their end. */
  readonly over: Promise<void>;
  private readonly outcome: Promise<unknown>;

  constructor(worker: StartedFlowWorker, epochs: number, partitions?: readonly number[]) {
    this.outcome = worker
      .runEpochs(epochs, partitions)
      .then(() => drainRunning(worker, partitions))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    this.over = this.outcome.then(() => undefined);
  }

  /** Waits for the writes (bounded) and rethrows their error. */
  async finish(what: string): Promise<void> {
    const error = await withTimeout(this.outcome, WRITE_LIMIT_MS, what);
    if (error !== undefined) throw error;
  }
}
