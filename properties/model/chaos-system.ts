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
  /** Arms a crash point, runs until the sink process dies there (or gives up), restarts it from its store. */
  crashSink(point: CrashPoint): Promise<void>;
  /** Restarts every sink worker with another spec (topology, class or dynamic parameters). */
  restartWithSpec(spec: RawSinkSpec, label: string): Promise<void>;
  applyFault(fault: Fault): Promise<void>;
  healFault(fault: Fault): Promise<void>;
}
