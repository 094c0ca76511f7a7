import type { Logger } from 'pino';
import type { History } from '../../harness/flow/history/index.ts';
import { describeError, HarnessError, withTimeout } from '../../harness/base/index.ts';

/** How long closing a stopped run's workers may take (each is killed). */
const CLOSE_WORKERS_LIMIT_MS = 15_000;

/** What of the supervisor the run's cleanup needs: closing kills every worker still running. */
export interface ClosableSupervisor {
  close(): Promise<unknown>;
}

/** What of the system behind the schedule the settle phase and the cleanup need. */
export interface SettlingSystem {
  finish(): Promise<History>;
  closeHistory(): void;
}

/**
 * The run's sink workers as far as they were launched, whatever phase the run stopped in. The
 * settle phase stops them in order; on any other path `close` does: the nemesis's history closed,
 * every worker still running closed within a bound (a worker that does not stop is killed).
 */
export class RunWorkers {
  private supervisor: ClosableSupervisor | undefined;
  private system: SettlingSystem | undefined;
  private settled = false;

  constructor(
    private readonly log: Logger,
    private readonly closeLimitMs = CLOSE_WORKERS_LIMIT_MS,
  ) {}

  /** Called as soon as it exists, so a stop at any moment after it closes its workers. */
  supervising(supervisor: ClosableSupervisor): void {
    this.supervisor = supervisor;
  }

  /** Called as soon as it exists, so a stop at any moment after it closes its history. */
  running(system: SettlingSystem): void {
    this.system = system;
  }

  /** Settle: every fault healed, what can be delivered delivered, the workers stopped; the run's history. */
  async settle(): Promise<History> {
    if (this.system === undefined) throw new HarnessError('CHAOS_NO_WORKER', 'no sink worker was launched to settle');
    const history = await this.system.finish();
    this.settled = true;
    return history;
  }

  /** The cleanup of every path; never throws (a failure to close is logged: the undo still runs after it). */
  async close(): Promise<void> {
    this.system?.closeHistory();
    if (this.settled || this.supervisor === undefined) return;
    await withTimeout(this.supervisor.close(), this.closeLimitMs, 'closing the run’s sink workers').catch(
      (error: unknown) => this.log.warn({ err: describeError(error) }, 'closing the sink workers failed'),
    );
  }
}
