import type { GatedAttempt, HistoryWriter, RecoveryEvent } from '../../harness/flow/history/index.ts';
import type { Fault, FaultPlan, FaultWindow } from '../nemeses/index.ts';

/** A fault applied from its plan, and the window it opened. */
export interface AppliedFault {
  readonly plan: FaultPlan;
  readonly fault: Fault;
  readonly window: FaultWindow;
}

/**
 * The nemesis's part of the run's history: what was applied, at which INSERT it was aimed, what
 * the nemesis itself verified, and what never met anything. The checkers judge from these
 * events alone, so a stored run can be re-checked without the executor's memory.
 */
export class NemesisRecord {
  private windows = 0;

  constructor(private readonly history: HistoryWriter) {}

  start(
    fault: Fault,
    window: FaultWindow,
    aimedAt: GatedAttempt,
    plan: Pick<FaultPlan, 'expects' | 'proofs'>,
    overlaps?: number,
  ): number {
    this.windows += 1;
    this.history.append({
      type: 'fault-start',
      window: this.windows,
      fault: window.type,
      description: window.description,
      targets: window.targets,
      effect: fault.effect,
      ...(window.slowerThanMs === undefined ? {} : { slowerThanMs: window.slowerThanMs }),
      aimedAt: { gate: aimedAt.gate, queryId: aimedAt.queryId, attempt: aimedAt.attempt, endpoint: aimedAt.endpoint },
      ...(plan.expects === undefined ? {} : { expects: plan.expects }),
      proofs: plan.proofs,
      ...(window.toxic === undefined ? {} : { toxic: window.toxic }),
      ...(window.serverCode === undefined ? {} : { serverCode: window.serverCode }),
      ...(window.links === undefined ? {} : { links: window.links }),
      ...(overlaps === undefined ? {} : { overlaps }),
      ...(window.windows === undefined ? {} : { windows: window.windows }),
      ...(window.logBeforeKill === undefined ? {} : { logBeforeKill: window.logBeforeKill }),
    });
    return this.windows;
  }

  /** Two faults in force on one INSERT at once: each `fault-start` names the other's window. */
  startPair(pair: readonly [AppliedFault, AppliedFault], aimedAt: GatedAttempt): readonly [number, number] {
    const first = this.windows + 1;
    const [a, b] = pair;
    return [
      this.start(a.fault, a.window, aimedAt, a.plan, first + 1),
      this.start(b.fault, b.window, aimedAt, b.plan, first),
    ];
  }

  end(id: number, window: FaultWindow, healStartedAt: number): void {
    this.history.append({
      type: 'fault-end',
      window: id,
      fault: window.type,
      healStartedAt,
      ...(window.verified === undefined ? {} : { verified: window.verified }),
      ...(window.linksAfterHeal === undefined ? {} : { links: window.linksAfterHeal }),
      ...(window.windowHit === undefined ? {} : { windowHit: window.windowHit }),
    });
  }

  missed(plan: FaultPlan, reason: string): void {
    this.history.append({ type: 'fault-missed', fault: plan.type, description: plan.toString(), reason });
  }

  /** A heal's recovery: when the clock started, the bound, and whether the sink drained within it. */
  recovery(event: Omit<RecoveryEvent, 'type'>): void {
    this.history.append({ type: 'recovery', ...event });
  }

  /** The schedule ended after step `ran` of `steps`, and why. */
  scheduleCut(ran: number, steps: number, reason: string): void {
    this.history.append({ type: 'schedule-cut', ran, steps, reason });
  }

  close(): void {
    this.history.close();
  }
}
