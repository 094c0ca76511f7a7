import { HarnessError } from '../../errors.ts';

/**
 * The named points where a worker can be made to die. `before-insert` and `during-insert` fire
 * from the sink's `InsertObserver` hooks (nothing sent / the whole body sent, response pending);
 * the other two fire in the runtime around the store update that belongs to an insert:
 * - batching: between `deliver(batch)` returning and the batch's delivered mark, and right after it;
 * - at-least-once: between `writeEpoch` returning and the epoch commit, and right after it;
 * - at-most-once: the commit comes FIRST, so `after-state` fires after the commit and before the
 *   write (ordered mode keeps the messages pending), and `after-insert-before-state` after the
 *   write and before the acks are recorded.
 */
export const CRASH_POINTS = ['before-insert', 'during-insert', 'after-insert-before-state', 'after-state'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** Which hit of a point kills the worker: the `occurrence`-th (default 1st) matching hit in this worker. */
export interface CrashPlan {
  readonly point: CrashPoint;
  readonly occurrence?: number;
  readonly partition?: number;
  /**
   * Matches the hit's batch: the outbox batch number (batching), the epoch (at-least-once; and
   * at-most-once's runtime points), or the message seq (at-most-once's insert hooks, as
   * `InsertAttempt.batch` defines it).
   */
  readonly batch?: number;
}

export interface CrashHit {
  readonly point: CrashPoint;
  readonly partition: number;
  readonly batch: number;
  readonly occurrence: number;
}

/** Ends the process at the hit (a real SIGKILL in a worker); never returns. */
export type CrashAction = (hit: CrashHit) => Promise<never>;

export function validateCrashPlan(plan: CrashPlan): CrashPlan {
  if (!CRASH_POINTS.includes(plan.point)) {
    throw new HarnessError(
      'FLOW_CRASH_PLAN_INVALID',
      `Unknown crash point '${String(plan.point)}'; the points are ${CRASH_POINTS.join(', ')}`,
    );
  }
  if (plan.occurrence !== undefined && (!Number.isSafeInteger(plan.occurrence) || plan.occurrence < 1)) {
    throw new HarnessError(
      'FLOW_CRASH_PLAN_INVALID',
      `Crash occurrence ${plan.occurrence} must be a positive integer (1 = the first matching hit)`,
    );
  }
  return plan;
}

/** Counts the hits matching the armed plan and fires the action on the chosen one. */
export class CrashSwitch {
  private hits = 0;

  constructor(
    private readonly plan: CrashPlan | undefined,
    private readonly action: CrashAction,
  ) {
    if (plan) validateCrashPlan(plan);
  }

  static disarmed(): CrashSwitch {
    return new CrashSwitch(undefined, () => Promise.reject(new Error('unreachable: a disarmed switch never fires')));
  }

  async at(point: CrashPoint, partition: number, batch: number): Promise<void> {
    const plan = this.plan;
    if (!plan || plan.point !== point) return;
    if (plan.partition !== undefined && plan.partition !== partition) return;
    if (plan.batch !== undefined && plan.batch !== batch) return;
    this.hits += 1;
    if (this.hits === (plan.occurrence ?? 1)) await this.action({ point, partition, batch, occurrence: this.hits });
  }
}
