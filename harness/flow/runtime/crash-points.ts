import { HarnessError } from '../../base/index.ts';
import { CRASH_POINTS, type CrashPlan, type CrashPoint } from '../history/index.ts';

/** One hit of an armed point (the points: `../history/crash-point.ts`). */
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
