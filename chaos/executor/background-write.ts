import type { StartedFlowWorker } from '../../harness/flow/started-worker.ts';
import { HarnessError } from '../../harness/errors.ts';

const WRITE_LIMIT_MS = 120_000;

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HarnessError('CHAOS_STEP_TIMEOUT', `${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
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

  constructor(worker: StartedFlowWorker, epochs: number) {
    this.outcome = worker
      .runEpochs(epochs)
      .then(() => worker.drain())
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
