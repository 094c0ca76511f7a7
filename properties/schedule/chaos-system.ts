import type { FaultType } from '../../harness/flow/history/fault-type.ts';
import type { CrashPoint } from '../../harness/flow/runtime/crash-points.ts';
import type { RawSinkSpec } from '../arbitraries/arb-sink-spec.ts';

/**
 * When an aimed fault is healed: `insert-ended` — as soon as the INSERT it met ended, before the
 * sink acts on the outcome; `after-hold` — after the episode's hold time (it blocks the INSERT);
 * `writes-ended` — once the episode's writes ended, so the sink's retries meet it too (server
 * errors that must outlast the sink's whole retry budget).
 */
export type HealMoment = 'insert-ended' | 'after-hold' | 'writes-ended';

/**
 * A fault as a schedule holds it: an immutable description (what kind, when it heals). The
 * executor that implements `ChaosSystem` knows how to aim and apply it.
 */
export interface ScheduledFault {
  readonly type: FaultType;
  readonly heals: HealMoment;
  toString(): string;
}

/**
 * The real system a chaos scenario drives: the pipeline (sink workers hosted by the runtime) and
 * the nemeses. The schedule's commands only talk to this; the executor implements it over the
 * cluster, the fault proxy and the runtime supervisor.
 */
export interface ChaosSystem {
  /** Processes `epochs` more epochs on every partition; delivery runs alongside. */
  writeEpochs(epochs: number): Promise<void>;
  /**
   * Processes and delivers `epochs` epochs with `plan` aimed at their first INSERT: the fault is
   * applied to that INSERT's link or replica right before its request, and healed when it ended
   * (or after `holdMs`, for a fault that blocks it), before the sink acts on the outcome. Every
   * wait is bounded: an INSERT that never comes is recorded as a missed fault.
   */
  faultEpisode(plan: ScheduledFault, epochs: number, holdMs: number): Promise<void>;
  /**
   * Aims `plan` (an answer cut after its INSERT committed) at partition 0's first INSERT of
   * `epochs` epochs and, while that sink waits to hear the outcome, lets the other partitions
   * write `afterMs` later — moving the table's dedup window past partition 0's block — and gives
   * ClickHouse's cleanup time to forget it; then the sink acts on the outcome and replays.
   */
  replayAfterDedupWindow(plan: ScheduledFault, epochs: number, afterMs: number): Promise<void>;
  /** Arms a crash point, runs until the sink process dies there (or gives up), restarts it from its store. */
  crashSink(point: CrashPoint): Promise<void>;
  /**
   * Processes and delivers `epochs` epochs and, `afterMs` after their first INSERT was sent (held
   * in flight by a latency aimed at it), gives the running sinks new dynamic parameters (the
   * seed's dynamic reconfiguration: no restart, no metadata check). Later restarts keep them.
   */
  reconfigureWhileWriting(dynamic: Readonly<Record<string, unknown>>, epochs: number, afterMs: number): Promise<void>;
  /** Restarts the sink worker with another spec (topology, class or dynamic parameters). */
  restartWithSpec(spec: RawSinkSpec, label: string): Promise<void>;
  /** Restarts the worker with `spec` and delivery held, then writes: the epochs' batches stay undelivered. */
  holdAndWrite(epochs: number, spec: RawSinkSpec, label: string): Promise<void>;
  /** Delivers every undelivered batch of these partitions. */
  drain(partitions: readonly number[]): Promise<void>;
  /** Restarts the sink with its spec if a partition gave up (the seed's operator); otherwise nothing. */
  restartAfterGiveUp(): Promise<void>;
}
