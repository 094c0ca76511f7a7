import type { InsertOutcome } from '../../sinks/index.ts';
import type { GatedAttempt, GatePhase } from './history/index.ts';
import type { GatePlan } from './runtime/insert-gates.ts';
import type { EpochOutcome, PartitionStatus } from './runtime/partition-runtime.ts';
import type { WorkerConfig } from './worker-config.ts';
import type { StartRefusal } from './worker-host.ts';

/** What the supervisor asks of a started worker; each gets exactly one reply. */
export type WorkerCommand =
  | { readonly op: 'run-epochs'; readonly count: number; readonly partitions?: readonly number[] }
  | { readonly op: 'drain'; readonly partitions?: readonly number[] }
  | { readonly op: 'status' }
  | { readonly op: 'reconfigure'; readonly dynamic: unknown; readonly partitions?: readonly number[] }
  | { readonly op: 'arm-gate'; readonly plan: GatePlan }
  | { readonly op: 'disarm-gate'; readonly gate: number }
  | { readonly op: 'stop' };

export interface CommandResults {
  readonly 'run-epochs': Record<number, EpochOutcome[]>;
  readonly drain: null;
  readonly status: PartitionStatus[];
  readonly reconfigure: null;
  readonly 'arm-gate': null;
  /** Whether the gate was still waiting for an attempt. */
  readonly 'disarm-gate': boolean;
  readonly stop: null;
}

export type SupervisorMessage =
  | { readonly type: 'start'; readonly config: WorkerConfig }
  | { readonly type: 'request'; readonly id: number; readonly command: WorkerCommand }
  /** Lets an attempt held by a gate go on. */
  | { readonly type: 'gate-open'; readonly gate: number; readonly phase: GatePhase };

export type WorkerMessage =
  | { readonly type: 'started'; readonly partitions: PartitionStatus[] }
  /** The spec or the store was refused; the worker exits with `REFUSED_EXIT_CODE`. */
  | { readonly type: 'start-refused'; readonly refusal: StartRefusal }
  | { readonly type: 'reply'; readonly id: number; readonly ok: true; readonly result: unknown }
  | {
      readonly type: 'reply';
      readonly id: number;
      readonly ok: false;
      readonly error: { readonly message: string; readonly code?: string };
    }
  /** A gate holds an attempt until the supervisor answers `gate-open` for the same phase. */
  | {
      readonly type: 'gate-held';
      readonly phase: GatePhase;
      readonly attempt: GatedAttempt;
      readonly outcome?: InsertOutcome;
    };

export const REFUSED_EXIT_CODE = 3;
