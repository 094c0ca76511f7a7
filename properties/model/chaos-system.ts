import type { Fault } from '../../chaos/nemeses/fault.ts';
import type { CrashPoint } from '../../harness/flow/runtime/crash-points.ts';
import type { RawSinkSpec } from '../arbitraries/arb-sink-spec.ts';

/**
 * The real system a chaos scenario drives: the pipeline (sink workers hosted by the runtime) and
 * the nemeses. The model commands only talk to this; the executor implements it over the
 * cluster, the fault proxy and the runtime supervisor.
 */
export interface ChaosSystem {
  /** Processes `epochs` more epochs on every partition; delivery runs alongside. */
  writeEpochs(epochs: number): Promise<void>;
  /**
   * Applies `fault`, processes `epochs` epochs and delivers them while it holds, heals it after
   * `holdMs` even if the traffic is still stuck behind it, then waits for the traffic: faults
   * that stall writes cannot deadlock the schedule.
   */
  faultEpisode(fault: Fault, epochs: number, holdMs: number): Promise<void>;
  /** Arms a crash point, runs until the sink process dies there (or gives up), restarts it from its store. */
  crashSink(point: CrashPoint): Promise<void>;
  /**
   * Processes and delivers `epochs` epochs and, `afterMs` after one of their INSERTs started,
   * gives the running sinks new dynamic parameters (the seed's dynamic reconfiguration: no
   * restart, no metadata check). Later restarts keep the new parameters.
   */
  reconfigureWhileWriting(dynamic: Readonly<Record<string, unknown>>, epochs: number, afterMs: number): Promise<void>;
  /** Restarts the sink worker with another spec (topology, class or dynamic parameters). */
  restartWithSpec(spec: RawSinkSpec, label: string): Promise<void>;
  /** Restarts the worker with delivery held, then writes: the epochs' batches stay undelivered. */
  holdAndWrite(epochs: number): Promise<void>;
  /** Delivers every undelivered batch of these partitions. */
  drain(partitions: readonly number[]): Promise<void>;
}
