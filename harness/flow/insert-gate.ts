import type { InsertOutcome } from '../../sinks/index.ts';
import type { GatedAttempt, GatePhase } from './history/index.ts';

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting when the worker dies; the rejection is still seen by whoever awaits.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export interface GatedOutcome {
  readonly attempt: GatedAttempt;
  readonly outcome: InsertOutcome;
}

/**
 * The supervisor's side of one armed gate (`runtime/insert-gates.ts`): `held` resolves when the
 * worker holds an attempt before its request, `ended` when it holds the same attempt after its
 * outcome. Each hold lasts until `openRequest` / `openOutcome`; an outcome opened early is let go
 * the moment it is held. A disarmed gate that still catches an attempt (the worker had already
 * sent it) lets it go at once.
 */
export class InsertGate {
  private readonly request = deferred<GatedAttempt>();
  private readonly outcome = deferred<GatedOutcome>();
  private readonly opened = new Set<GatePhase>();
  private readonly pending = new Set<GatePhase>();
  private disarmed = false;

  constructor(
    readonly id: number,
    private readonly open: (phase: GatePhase) => void,
    private readonly disarmInWorker: () => Promise<boolean>,
  ) {}

  get held(): Promise<GatedAttempt> {
    return this.request.promise;
  }

  get ended(): Promise<GatedOutcome> {
    return this.outcome.promise;
  }

  openRequest(): void {
    this.release('request');
  }

  openOutcome(): void {
    this.release('outcome');
  }

  /** Stops the gate from catching an attempt; one it already caught goes on without waiting. */
  async disarm(): Promise<void> {
    this.disarmed = true;
    for (const phase of [...this.pending]) this.release(phase);
    await this.disarmInWorker();
  }

  /** Called by the worker handle when the worker holds an attempt at this gate. */
  onHeld(phase: GatePhase, attempt: GatedAttempt, outcome: InsertOutcome | undefined): void {
    this.pending.add(phase);
    if (phase === 'request') this.request.resolve(attempt);
    else this.outcome.resolve({ attempt, outcome: outcome ?? 'unknown' });
    if (this.disarmed || this.opened.has(phase)) this.release(phase);
  }

  /** The worker is gone: nothing will be held any more. */
  onExit(error: unknown): void {
    this.request.reject(error);
    this.outcome.reject(error);
  }

  private release(phase: GatePhase): void {
    this.opened.add(phase);
    if (!this.pending.delete(phase)) return;
    this.open(phase);
  }
}
