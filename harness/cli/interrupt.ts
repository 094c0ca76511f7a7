import { reapRunsOwnedBy } from '../cluster/index.ts';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
export type InterruptSignal = (typeof SIGNALS)[number];

/** The exit status a shell gives a process that a signal ended: 128 + the signal's number. */
export function interruptExitCode(signal: InterruptSignal): number {
  return signal === 'SIGINT' ? 130 : 143;
}

/** How long the forced stop gives each task registered with `alsoOnForcedStop`. */
export const FORCED_TASK_LIMIT_MS = 5_000;

/** Work besides the teardown that the forced stop must do, registered by whoever opened it. */
const forcedStopTasks = new Set<() => Promise<unknown>>();

/**
 * Registers work the forced stop does besides killing this process's cluster runs — undoing what
 * a run did to a cluster the process does not own (an attached one, which no teardown touches) —
 * each bounded by `FORCED_TASK_LIMIT_MS`. Returns the registration's removal.
 */
export function alsoOnForcedStop(task: () => Promise<unknown>): () => void {
  forcedStopTasks.add(task);
  return () => forcedStopTasks.delete(task);
}

function bounded(work: Promise<unknown>, ms: number, what: string): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export interface InterruptOptions {
  /** The command's name, for the one line the user sees. */
  readonly name: string;
  /** From the first signal to the forced stop when the graceful path has not exited by then; 0: no graceful path. */
  readonly graceMs?: number;
  readonly write?: (line: string) => void;
  /** What the forced stop tears down (besides `alsoOnForcedStop`'s tasks); every cluster run this process owns by default. */
  readonly teardown?: () => Promise<unknown>;
  readonly exit?: (code: number) => void;
  /** How long the forced stop gives each `alsoOnForcedStop` task. */
  readonly taskLimitMs?: number;
}

export interface Interrupt {
  /** Aborted at the first signal: long work checks it and unwinds, writing what it has. */
  readonly signal: AbortSignal;
  /** The first signal received, if any. */
  readonly received: () => InterruptSignal | undefined;
  /** Removes the handlers (the command finished on its own). */
  dispose(): void;
  /**
   * The command's exit status once its work returned: after a signal, whatever it still owns is
   * torn down and the signal's status (130 / 143) is returned; otherwise `normal`.
   */
  settle(normal: number): Promise<number>;
  /**
   * The command's work, unless a signal made it fail: then the failure is the interrupt's doing
   * (a child the signal reached died first), so the process tears down and exits with the
   * signal's status instead of reporting an error.
   */
  guard<T>(work: Promise<T>): Promise<T>;
  /**
   * An error nothing caught (a library's own callback throwing on a socket event): the process
   * cannot go on, so it says so in one line and takes the forced stop, exiting 3 (not verified).
   * Installed on `uncaughtException`; exposed for its test.
   */
  crash(error: unknown): void;
}

/** The exit status of a command stopped by an error nothing caught: nothing was verified. */
export const CRASH_EXIT_CODE = 3;

/**
 * SIGINT / SIGTERM handling for a long-running command. The first signal aborts `signal` so the
 * command stops its current run, records it as interrupted, writes its report and tears its
 * cluster down; if that has not ended the process within the grace period, or a second signal
 * comes, the forced stop kills every process of the runs this process owns, undoes (bounded)
 * what the registered journals of attached clusters still hold, and exits. Either way nothing
 * the command started outlives it.
 */
export function installInterrupt(options: InterruptOptions): Interrupt {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const teardown = options.teardown ?? (() => reapRunsOwnedBy(process.pid));
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const controller = new AbortController();
  let received: InterruptSignal | undefined;
  let timer: NodeJS.Timeout | undefined;
  let forced: Promise<void> | undefined;

  // One forced stop however many paths ask for it: two concurrent teardowns would race.
  const force = (signal: InterruptSignal | typeof CRASH_EXIT_CODE): Promise<void> => {
    forced ??= (async () => {
      write(`${options.name}: stopping now; tearing down what this run started`);
      const failed = (error: unknown) => write(`${options.name}: teardown failed: ${(error as Error).message}`);
      await Promise.all([
        teardown().catch(failed),
        ...[...forcedStopTasks].map((task) =>
          bounded(task(), options.taskLimitMs ?? FORCED_TASK_LIMIT_MS, 'undoing what the run did').catch(failed),
        ),
      ]);
      exit(signal === CRASH_EXIT_CODE ? CRASH_EXIT_CODE : interruptExitCode(signal));
    })();
    return forced;
  };
  const crash = (error: unknown) => {
    write(`${options.name}: internal error, stopping: ${error instanceof Error ? error.message : String(error)}`);
    controller.abort(new Error('internal error'));
    void force(CRASH_EXIT_CODE);
  };
  const handler = (signal: InterruptSignal) => {
    if (received !== undefined) {
      void force(received);
      return;
    }
    received = signal;
    controller.abort(new Error(`interrupted by ${signal}`));
    if (options.graceMs === 0) {
      void force(signal);
      return;
    }
    write(
      `${options.name}: ${signal} received; finishing the report and tearing the cluster down (a second signal stops at once)`,
    );
    timer = setTimeout(() => void force(signal), options.graceMs ?? 8_000);
    timer.unref();
  };
  const listeners = SIGNALS.map((signal) => [signal, () => handler(signal)] as const);
  for (const [signal, listener] of listeners) process.on(signal, listener);
  process.on('uncaughtException', crash);
  const dispose = () => {
    if (timer !== undefined) clearTimeout(timer);
    for (const [signal, listener] of listeners) process.off(signal, listener);
    process.off('uncaughtException', crash);
  };
  return {
    signal: controller.signal,
    received: () => received,
    dispose,
    settle: async (normal) => {
      if (received === undefined) {
        dispose();
        return normal;
      }
      if (forced === undefined) await teardown();
      else await forced;
      return interruptExitCode(received);
    },
    crash,
    guard: async (work) => {
      try {
        return await work;
      } catch (error) {
        if (received === undefined) throw error;
        await force(received);
        throw error;
      }
    },
  };
}
