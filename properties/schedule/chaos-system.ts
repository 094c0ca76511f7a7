import type { CrashPoint } from '../../harness/flow/history/index.ts';
import type { RawSinkSpec } from '../arbitraries/index.ts';
import type { FaultSpec } from './fault-spec.ts';
import type { ChainLink, OverlappingPair } from './schedule-step.ts';

/**
 * The real system a chaos scenario drives: the pipeline (sink workers hosted by the runtime) and
 * the nemeses. The schedule's steps only talk to this (`runStep`); the executor implements it over the
 * cluster, the fault proxy and the runtime supervisor.
 */
export interface ChaosSystem {
  /** Processes `epochs` more epochs on every partition; delivery runs alongside. */
  writeEpochs(epochs: number): Promise<void>;
  /**
   * Processes and delivers `epochs` epochs with `fault` aimed at their first INSERT: the fault is
   * applied to that INSERT's link or replica right before its request, and healed when it ended
   * (or after `holdMs`, for a fault that blocks it), before the sink acts on the outcome. Every
   * wait is bounded: an INSERT that never comes is recorded as a missed fault.
   */
  faultEpisode(fault: FaultSpec, epochs: number, holdMs: number): Promise<void>;
  /**
   * Aims `fault` (an answer cut after its INSERT committed) at partition 0's first INSERT of
   * `epochs` epochs and, while that sink waits to hear the outcome, lets the other partitions
   * write `afterMs` later — moving the table's dedup window past partition 0's block — and gives
   * ClickHouse's cleanup time to forget it; then the sink acts on the outcome and replays.
   */
  replayAfterDedupWindow(fault: FaultSpec, epochs: number, afterMs: number): Promise<void>;
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
  /**
   * Processes and delivers `epochs` epochs with `first` aimed at their first INSERT and each later
   * link at that INSERT's next attempt (same batch and shard): the sink's retry, or the replay its
   * restart makes after it was killed while waiting for the previous outcome; each healed before
   * the sink acts on its outcome. An attempt that never comes ends its link, and the rest, as missed.
   */
  faultChain(first: FaultSpec, later: readonly ChainLink[], epochs: number, holdMs: number): Promise<void>;
  /**
   * Processes and delivers `epochs` epochs with both `faults` aimed at their first INSERT at once:
   * applied in order right before its request, each healed at its own moment, `faults[healFirst]`
   * first; the sink hears the outcome once both are healed, or at once when one lasts until the
   * writes end (its retries meet the other's effect too). Bounded like `faultEpisode`.
   */
  overlappingFaults(faults: OverlappingPair, healFirst: 0 | 1, epochs: number, holdMs: number): Promise<void>;
  /** Whether the sink stalled after a heal in a step run so far (no progress within its recovery bound). */
  readonly stalled: boolean;
  /** Records that the schedule ends after step `ran` of `steps`, because the sink stalled. */
  cutSchedule(ran: number, steps: number): void;
}
