import { withTimeout } from '../../harness/base/index.ts';

/** How long an abandoned run may take to stop and undo what it did (its own waits are bounded below this). */
export const STOP_ABANDONED_LIMIT_MS = 60_000;

/**
 * The run fast-check's predicate has in flight. fast-check's time backstop
 * (`interruptAfterTimeLimit`) abandons a predicate by a race and does not cancel it: the run would
 * go on acting on the cluster under the next pair. `stopAbandoned`, called once the check
 * returned, aborts such a run and waits until it stopped and undid what it did.
 */
export class RunInFlight {
  /** Aborted by the caller's signal (an interrupt) or by `stopAbandoned`. */
  readonly signal: AbortSignal;
  private readonly backstop = new AbortController();
  private current: Promise<unknown> | undefined;

  constructor(outer?: AbortSignal) {
    this.signal = outer === undefined ? this.backstop.signal : AbortSignal.any([outer, this.backstop.signal]);
  }

  /** The predicate's whole body: the run and what the predicate records of it. */
  track<T>(run: Promise<T>): Promise<T> {
    this.current = run;
    const clear = () => {
      if (this.current === run) this.current = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  /** Stops a run that outlived the check, if one did: aborted with `reason`, awaited (bounded). */
  async stopAbandoned(reason: Error, limitMs = STOP_ABANDONED_LIMIT_MS): Promise<boolean> {
    const run = this.current;
    if (run === undefined) return false;
    this.backstop.abort(reason);
    await withTimeout(
      run.then(
        () => undefined,
        () => undefined,
      ),
      limitMs,
      'stopping a run the check abandoned',
    );
    return true;
  }
}
