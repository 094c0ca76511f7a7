import type { InsertAttempt, InsertOutcome } from '../../../sinks/index.ts';
import type { GatedAttempt, GatePhase, HistorySink } from '../history/index.ts';

/**
 * Gates let a driver (the chaos executor) act at an exact moment of the sink's work instead of
 * over a time window that may or may not meet an INSERT. An armed gate catches the next INSERT
 * attempt (of one partition, or of any) and holds it twice:
 * - `request`: right before its request starts — the driver applies a fault, then opens it, so
 *   the fault meets this INSERT by construction;
 * - `outcome`: once the attempt ended, before the sink acts on the outcome — the driver heals,
 *   then opens it, so the sink's retry never meets the fault and the schedule stays deterministic.
 * A gate is one-shot. Every hold has a deadline: a driver that never answers delays the sink,
 * never blocks it. A chain of faults on one INSERT arms its next gate with `retryOf` while the
 * previous attempt is held at `outcome`, so the retry that outcome causes is the one caught.
 */
export interface GatePlan {
  readonly id: number;
  readonly partition?: number;
  /**
   * Catch only the first attempt of a batch: its replay may find its block already in (and
   * replicated), and a fault that needs the server to do new work would meet nothing there.
   */
  readonly firstAttempt?: boolean;
  /**
   * Catch only an attempt that no other attempt of this worker to the same shard is in flight
   * beside: under a sequential quorum, a concurrent INSERT still waiting for its quorum makes the
   * caught one fail at once (286), before a fault on what its own quorum waits for could act.
   * Partitions writing at once may never leave a shard idle, so the gate makes the moment: an
   * attempt it would catch but for the others waits until they ended, and until the caught one's
   * outcome is let go (after the heal) the shard's other attempts wait: a sequential quorum takes
   * whichever INSERT reaches the server first, not the first sent.
   */
  readonly aloneOnShard?: boolean;
  /**
   * Catch only a later attempt of the INSERT an earlier gate caught: the same batch and shard
   * (with `partition`), a higher attempt number — its retry, never another INSERT.
   */
  readonly retryOf?: RetriedAttempt;
}

/** The INSERT attempt a `retryOf` gate waits for a retry of. */
export interface RetriedAttempt {
  readonly batch: number;
  readonly shard: string | null;
  readonly attempt: number;
}

/**
 * Whether a gate armed with `plan` catches this attempt of `partition`, `othersOnShard` being how
 * many other attempts to its shard are in flight.
 */
export function gateCatches(plan: GatePlan, partition: number, attempt: InsertAttempt, othersOnShard = 0): boolean {
  const { retryOf } = plan;
  return (
    (plan.partition === undefined || plan.partition === partition) &&
    (plan.firstAttempt !== true || attempt.attempt === 1) &&
    (plan.aloneOnShard !== true || othersOnShard === 0) &&
    (retryOf === undefined ||
      (attempt.batch === retryOf.batch && attempt.shard === retryOf.shard && attempt.attempt > retryOf.attempt))
  );
}

/** How a held attempt reaches the driver; each call resolves when the driver opens the gate. */
export interface GateChannel {
  hold(phase: GatePhase, attempt: GatedAttempt, outcome?: InsertOutcome): Promise<void>;
}

const GATE_HOLD_LIMIT_MS = 60_000;

export class InsertGates {
  private readonly armed = new Map<number, GatePlan>();
  /** Attempts caught at `request`, by query id, until their `outcome` hold. */
  private readonly caught = new Map<string, GatedAttempt>();
  /** The shard of every attempt past its request point and not yet ended, by query id. */
  private readonly inFlight = new Map<string, string | null>();
  /** Shards an attempt caught alone is on, until its outcome is let go: the others wait for that. */
  private readonly heldAlone = new Map<
    string | null,
    { readonly released: Promise<void>; readonly release: () => void }
  >();
  /** Attempts waiting for their shard to go quiet, woken on every change that may end the wait. */
  private wakers: (() => void)[] = [];

  constructor(
    private readonly channel: GateChannel | undefined,
    private readonly history: HistorySink,
    private readonly holdLimitMs = GATE_HOLD_LIMIT_MS,
  ) {}

  arm(plan: GatePlan): void {
    this.armed.set(plan.id, plan);
  }

  /** True when the gate was still waiting for an attempt (false: it caught one, or never existed). */
  disarm(id: number): boolean {
    const was = this.armed.delete(id);
    this.wake();
    return was;
  }

  async beforeRequest(partition: number, attempt: InsertAttempt): Promise<void> {
    if (this.channel === undefined) return;
    const waitUntil = Date.now() + this.holdLimitMs;
    for (;;) {
      const held = this.heldAlone.get(attempt.shard);
      if (held !== undefined) {
        if (!(await this.within(held.released, waitUntil - Date.now()))) break;
        continue;
      }
      const others = [...this.inFlight.values()].filter((shard) => shard === attempt.shard).length;
      const plan = [...this.armed.values()].find((candidate) => gateCatches(candidate, partition, attempt, others));
      if (plan !== undefined) return this.catch(plan, partition, attempt);
      const waitsForQuiet = [...this.armed.values()].some(
        (candidate) => candidate.aloneOnShard === true && gateCatches(candidate, partition, attempt, 0),
      );
      if (!waitsForQuiet || !(await this.nextChange(waitUntil - Date.now()))) break;
    }
    this.inFlight.set(attempt.queryId, attempt.shard);
  }

  async afterOutcome(attempt: InsertAttempt, outcome: InsertOutcome): Promise<void> {
    this.inFlight.delete(attempt.queryId);
    this.wake();
    const gated = this.caught.get(attempt.queryId);
    if (gated === undefined) return;
    this.caught.delete(attempt.queryId);
    try {
      await this.hold('outcome', gated, outcome);
    } finally {
      this.releaseShard(gated);
    }
  }

  private async catch(plan: GatePlan, partition: number, attempt: InsertAttempt): Promise<void> {
    this.armed.delete(plan.id);
    this.inFlight.set(attempt.queryId, attempt.shard);
    const gated: GatedAttempt = {
      gate: plan.id,
      partition,
      batch: attempt.batch,
      shard: attempt.shard,
      endpoint: attempt.endpoint,
      queryId: attempt.queryId,
      attempt: attempt.attempt,
    };
    this.caught.set(attempt.queryId, gated);
    if (plan.aloneOnShard === true) {
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      this.heldAlone.set(attempt.shard, { released, release });
    }
    try {
      await this.hold('request', gated);
    } catch (error) {
      this.releaseShard(gated);
      throw error;
    }
  }

  /** The shard of an attempt caught alone is free again: its other attempts go on. */
  private releaseShard(gated: GatedAttempt): void {
    const held = this.heldAlone.get(gated.shard);
    if (held === undefined) return;
    this.heldAlone.delete(gated.shard);
    held.release();
  }

  /** True when `promise` settled within `ms`. */
  private async within(promise: Promise<void>, ms: number): Promise<boolean> {
    if (ms <= 0) return false;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    return Promise.race([promise.then(() => true as const), timedOut]).finally(() => clearTimeout(timer));
  }

  /** True on the next change to what is armed or in flight; false when `ms` passed first. */
  private nextChange(ms: number): Promise<boolean> {
    return this.within(new Promise<void>((resolve) => this.wakers.push(resolve)), ms);
  }

  private wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }

  private async hold(phase: GatePhase, gated: GatedAttempt, outcome?: InsertOutcome): Promise<void> {
    const channel = this.channel;
    if (channel === undefined) return;
    const heldAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.holdLimitMs);
    });
    const opened = await Promise.race([channel.hold(phase, gated, outcome).then(() => true), limit]).finally(() =>
      clearTimeout(timer),
    );
    this.history.append({
      type: 'insert-gated',
      ...gated,
      phase,
      heldMs: Date.now() - heldAt,
      opened,
      ...(outcome === undefined ? {} : { outcome }),
    });
  }
}
