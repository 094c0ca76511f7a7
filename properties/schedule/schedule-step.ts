import type { CrashPoint } from '../../harness/flow/history/index.ts';
import type { RawSinkSpec } from '../arbitraries/index.ts';
import type { ChaosSystem } from './chaos-system.ts';
import { describeFault, type FaultSpec } from './fault-spec.ts';

/**
 * One step of a run's schedule: a plain record (JSON, stored in `schedule.json`), interpreted by
 * `runStep` and printed by `describeStep`. No model: what a step must cause is judged afterwards
 * by the checkers over the stored history and ground truth, and which starts must refuse by the
 * judge's guard model over the history's launches (`properties/judge/`).
 */
export type ScheduleStep =
  /** Pushes `epochs` epochs of every partition through the sink. */
  | { readonly kind: 'write'; readonly epochs: number }
  /** A fault aimed at the first INSERT of `epochs` epochs, healed when it ended (or after `holdMs` when it blocks it). */
  | { readonly kind: 'fault-episode'; readonly fault: FaultSpec; readonly epochs: number; readonly holdMs: number }
  /** An INSERT's answer cut, and its replay held until other writers moved the dedup window past it. */
  | {
      readonly kind: 'replay-after-dedup-window';
      readonly fault: FaultSpec;
      readonly epochs: number;
      readonly afterMs: number;
    }
  /** Kills the sink process at a named point and restarts it from its store. */
  | { readonly kind: 'crash'; readonly point: CrashPoint }
  /** Changes the dynamic parameters of the running sink while epochs go through it. */
  | {
      readonly kind: 'reconfigure-while-writing';
      readonly dynamic: Readonly<Record<string, unknown>>;
      readonly epochs: number;
      readonly afterMs: number;
    }
  /**
   * Restarts the sink with another spec: dynamic parameters, topology or class. `refusal` marks a
   * restart the scenario made to be refused (a topology change over a backlog): the run must show
   * one for coverage; whether a start refuses is still judged by the executor's own model.
   */
  | {
      readonly kind: 'restart-with-spec';
      readonly spec: RawSinkSpec;
      readonly label: string;
      readonly refusal: boolean;
    }
  /** Restarts the sink with `spec` and delivery held, then writes: every partition is left with undelivered batches. */
  | { readonly kind: 'hold-and-write'; readonly epochs: number; readonly spec: RawSinkSpec; readonly label: string }
  /**
   * The seed's operator: a sink that gave up rejects every later write until the pipeline is
   * restarted, so a schedule whose faults may exhaust the retry budget restarts it after them.
   * Nothing happens when no partition gave up.
   */
  | { readonly kind: 'restart-after-give-up' }
  /** Drains the given partitions only. */
  | { readonly kind: 'drain'; readonly partitions: readonly number[] }
  /**
   * Faults on consecutive attempts of ONE INSERT: `first` at the first INSERT of `epochs` epochs,
   * each later link at the next attempt of the same batch and shard (the sink's retry, or the
   * replay after a kill), each healed before the sink sees its attempt's outcome (or after
   * `holdMs`, for a fault that blocks it).
   */
  | {
      readonly kind: 'fault-chain';
      readonly first: FaultSpec;
      readonly later: readonly ChainLink[];
      readonly epochs: number;
      readonly holdMs: number;
    }
  /**
   * Two faults in force on the first INSERT of `epochs` epochs at once: `faults` applied in that
   * order before its request goes, each healed at its own moment (`holdMs` for one that blocks
   * it), `faults[healFirst]` first — the other waits for that heal too.
   */
  | {
      readonly kind: 'overlapping-faults';
      readonly faults: OverlappingPair;
      readonly healFirst: 0 | 1;
      readonly epochs: number;
      readonly holdMs: number;
    };

/** The two faults of an overlapping episode, in the order they are applied. */
export type OverlappingPair = readonly [FaultSpec, FaultSpec];
/** A later link of a fault chain: its fault, and which later attempt of the chain's INSERT it meets. */
export interface ChainLink {
  readonly fault: FaultSpec;
  /**
   * `retry`: the sink's own retry after the previous link's outcome; `replay`: the sink process
   * is killed while that outcome is held (it never hears it), and the link meets the replay of
   * the same batch that its restart from the store makes.
   */
  readonly meets: 'retry' | 'replay';
}

export type Schedule = readonly ScheduleStep[];

/** Every fault a step aims, in the order it applies them: one place that knows which kinds of step carry faults. */
export function stepFaults(step: ScheduleStep): readonly FaultSpec[] {
  switch (step.kind) {
    case 'fault-episode':
    case 'replay-after-dedup-window':
      return [step.fault];
    case 'fault-chain':
      return [step.first, ...step.later.map((link) => link.fault)];
    case 'overlapping-faults':
      return step.faults;
    default:
      return [];
  }
}
export type StepKind = ScheduleStep['kind'];

/** Asks the real system to do one step. */
/**
 * Runs the schedule's steps in order, up to the first step the sink stalled in: every stall is a
 * violation (the liveness checker flags each), so the steps after it would add no verdict, only
 * time to the run and to every shrink step of it. The cut is recorded through the system.
 */
export async function runSchedule(system: ChaosSystem, schedule: Schedule): Promise<void> {
  for (const [index, each] of schedule.entries()) {
    await runStep(system, each);
    if (system.stalled && index + 1 < schedule.length) {
      system.cutSchedule(index + 1, schedule.length);
      return;
    }
  }
}

export async function runStep(system: ChaosSystem, step: ScheduleStep): Promise<void> {
  switch (step.kind) {
    case 'write':
      return system.writeEpochs(step.epochs);
    case 'fault-episode':
      return system.faultEpisode(step.fault, step.epochs, step.holdMs);
    case 'replay-after-dedup-window':
      return system.replayAfterDedupWindow(step.fault, step.epochs, step.afterMs);
    case 'crash':
      return system.crashSink(step.point);
    case 'reconfigure-while-writing':
      return system.reconfigureWhileWriting(step.dynamic, step.epochs, step.afterMs);
    case 'restart-with-spec':
      return system.restartWithSpec(step.spec, step.label);
    case 'hold-and-write':
      return system.holdAndWrite(step.epochs, step.spec, step.label);
    case 'restart-after-give-up':
      return system.restartAfterGiveUp();
    case 'drain':
      return system.drain(step.partitions);
    case 'fault-chain':
      return system.faultChain(step.first, step.later, step.epochs, step.holdMs);
    case 'overlapping-faults':
      return system.overlappingFaults(step.faults, step.healFirst, step.epochs, step.holdMs);
  }
}

function describeHeal(step: { readonly fault: FaultSpec; readonly holdMs: number }): string {
  if (step.fault.heals === 'after-hold') return ` for ${step.holdMs}ms`;
  return step.fault.heals === 'writes-ended' ? ' until the writes end' : '';
}

/** One line of the schedule a report prints and a replay log shows. */
export function describeStep(step: ScheduleStep): string {
  switch (step.kind) {
    case 'write':
      return `write(${step.epochs})`;
    case 'fault-episode':
      return `${describeFault(step.fault)}${describeHeal(step)} at the first INSERT of write(${step.epochs})`;
    case 'replay-after-dedup-window':
      return `${describeFault(step.fault)} at partition 0's first INSERT of write(${step.epochs}), its replay held until the other partitions wrote ${step.afterMs}ms later`;
    case 'crash':
      return `crash sink at ${step.point}`;
    case 'reconfigure-while-writing':
      return `reconfigure ${JSON.stringify(step.dynamic)} ${step.afterMs}ms into the first INSERT of write(${step.epochs})`;
    case 'restart-with-spec':
      return `restart with ${step.label}`;
    case 'hold-and-write':
      return `restart with ${step.label}, write(${step.epochs}) with delivery held`;
    case 'restart-after-give-up':
      return 'restart if the sink gave up';
    case 'drain':
      return `drain partition${step.partitions.length === 1 ? '' : 's'} ${step.partitions.join(', ')}`;
    case 'fault-chain':
      return [
        `${describeFault(step.first)}${describeHeal({ fault: step.first, holdMs: step.holdMs })} at the first INSERT of write(${step.epochs})`,
        ...step.later.map(
          (link) =>
            `${link.meets === 'replay' ? 'the sink killed, then on its replay' : 'then on its retry'} ${describeFault(link.fault)}${describeHeal({ fault: link.fault, holdMs: step.holdMs })}`,
        ),
      ].join(', ');
    case 'overlapping-faults':
      return describeOverlap(step);
  }
}

function describeOverlap(step: Extract<ScheduleStep, { kind: 'overlapping-faults' }>): string {
  const [first, second] = step.faults.map(
    (fault) => `${describeFault(fault)}${describeHeal({ fault, holdMs: step.holdMs })}`,
  );
  const healed = describeFault(step.faults[step.healFirst]);
  return `${first} and ${second} at once, ${healed} healed first, at the first INSERT of write(${step.epochs})`;
}

/** Step constructors: the generators build records through these, so every field is set. */
export const step = {
  write: (epochs: number): ScheduleStep => ({ kind: 'write', epochs }),
  faultEpisode: (fault: FaultSpec, epochs: number, holdMs: number): ScheduleStep => ({
    kind: 'fault-episode',
    fault,
    epochs,
    holdMs,
  }),
  replayAfterDedupWindow: (fault: FaultSpec, epochs: number, afterMs: number): ScheduleStep => ({
    kind: 'replay-after-dedup-window',
    fault,
    epochs,
    afterMs,
  }),
  crash: (point: CrashPoint): ScheduleStep => ({ kind: 'crash', point }),
  reconfigureWhileWriting: (
    dynamic: Readonly<Record<string, unknown>>,
    epochs: number,
    afterMs: number,
  ): ScheduleStep => ({ kind: 'reconfigure-while-writing', dynamic, epochs, afterMs }),
  restartWithSpec: (spec: RawSinkSpec, label: string, refusal = false): ScheduleStep => ({
    kind: 'restart-with-spec',
    spec,
    label,
    refusal,
  }),
  holdAndWrite: (epochs: number, spec: RawSinkSpec, label: string): ScheduleStep => ({
    kind: 'hold-and-write',
    epochs,
    spec,
    label,
  }),
  restartAfterGiveUp: (): ScheduleStep => ({ kind: 'restart-after-give-up' }),
  drain: (partitions: readonly number[]): ScheduleStep => ({ kind: 'drain', partitions }),
  faultChain: (first: FaultSpec, later: readonly ChainLink[], epochs: number, holdMs: number): ScheduleStep => ({
    kind: 'fault-chain',
    first,
    later,
    epochs,
    holdMs,
  }),
  overlappingFaults: (faults: OverlappingPair, healFirst: 0 | 1, epochs: number, holdMs: number): ScheduleStep => ({
    kind: 'overlapping-faults',
    faults,
    healFirst,
    epochs,
    holdMs,
  }),
} as const;
