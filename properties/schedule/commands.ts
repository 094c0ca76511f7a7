import type { CrashPoint } from '../../harness/flow/runtime/crash-points.ts';
import type { RawSinkSpec } from '../arbitraries/arb-sink-spec.ts';
import type { ChaosSystem, ScheduledFault } from './chaos-system.ts';

/**
 * One step of a run's schedule: plain, immutable data that says what to do (`run` asks the real
 * system to do it) and how to print it. No model: what a step must cause is judged afterwards
 * by the checkers over the stored history and ground truth, and which starts must refuse by the
 * executor's guard model (`chaos/executor/guard-model.ts`).
 */
export interface ChaosCommand {
  run(system: ChaosSystem): Promise<void>;
  toString(): string;
}

/** Pushes `epochs` epochs of every partition through the sink. */
export class WriteEpochs implements ChaosCommand {
  constructor(readonly epochs: number) {}
  async run(system: ChaosSystem): Promise<void> {
    await system.writeEpochs(this.epochs);
  }
  toString = () => `write(${this.epochs})`;
}

/** A fault aimed at the first INSERT of `epochs` epochs, healed when it ended (or after `holdMs` when it blocks it). */
export class FaultEpisode implements ChaosCommand {
  constructor(
    readonly plan: ScheduledFault,
    readonly epochs: number,
    readonly holdMs: number,
  ) {}
  async run(system: ChaosSystem): Promise<void> {
    await system.faultEpisode(this.plan, this.epochs, this.holdMs);
  }
  toString = () =>
    `${this.plan.toString()}${this.plan.heals === 'after-hold' ? ` for ${this.holdMs}ms` : this.plan.heals === 'writes-ended' ? ' until the writes end' : ''} at the first INSERT of write(${this.epochs})`;
}

/** An INSERT's answer cut, and its replay held until other writers moved the dedup window past it. */
export class ReplayAfterDedupWindow implements ChaosCommand {
  constructor(
    readonly plan: ScheduledFault,
    readonly epochs: number,
    readonly afterMs: number,
  ) {}
  async run(system: ChaosSystem): Promise<void> {
    await system.replayAfterDedupWindow(this.plan, this.epochs, this.afterMs);
  }
  toString = () =>
    `${this.plan.toString()} at partition 0's first INSERT of write(${this.epochs}), its replay held until the other partitions wrote ${this.afterMs}ms later`;
}

/** Kills the sink process at a named point and restarts it from its store. */
export class CrashSink implements ChaosCommand {
  constructor(readonly point: CrashPoint) {}
  async run(system: ChaosSystem): Promise<void> {
    await system.crashSink(this.point);
  }
  toString = () => `crash sink at ${this.point}`;
}

/** Changes the dynamic parameters of the running sink while epochs go through it. */
export class ReconfigureWhileWriting implements ChaosCommand {
  constructor(
    readonly dynamic: Readonly<Record<string, unknown>>,
    readonly epochs: number,
    readonly afterMs: number,
  ) {}
  async run(system: ChaosSystem): Promise<void> {
    await system.reconfigureWhileWriting(this.dynamic, this.epochs, this.afterMs);
  }
  toString = () =>
    `reconfigure ${JSON.stringify(this.dynamic)} ${this.afterMs}ms into the first INSERT of write(${this.epochs})`;
}

/**
 * Restarts the sink with another spec: dynamic parameters, topology or class. `refusal` marks a
 * restart the scenario made to be refused (a topology change over a backlog): the run must show
 * one for coverage; whether a start refuses is still judged by the executor's own model.
 */
export class RestartWithSpec implements ChaosCommand {
  constructor(
    readonly spec: RawSinkSpec,
    readonly label: string,
    readonly refusal = false,
  ) {}
  async run(system: ChaosSystem): Promise<void> {
    await system.restartWithSpec(this.spec, this.label);
  }
  toString = () => `restart with ${this.label}`;
}

/** Restarts the sink with `spec` and delivery held, then writes: every partition is left with undelivered batches. */
export class HoldAndWrite implements ChaosCommand {
  constructor(
    readonly epochs: number,
    readonly spec: RawSinkSpec,
    readonly label: string,
  ) {}
  async run(system: ChaosSystem): Promise<void> {
    await system.holdAndWrite(this.epochs, this.spec, this.label);
  }
  toString = () => `restart with ${this.label}, write(${this.epochs}) with delivery held`;
}

/**
 * The seed's operator: a sink that gave up rejects every later write until the pipeline is
 * restarted, so a schedule whose faults may exhaust the retry budget restarts it after them.
 * Nothing happens when no partition gave up.
 */
export class RestartAfterGiveUp implements ChaosCommand {
  async run(system: ChaosSystem): Promise<void> {
    await system.restartAfterGiveUp();
  }
  toString = () => 'restart if the sink gave up';
}

/** Drains the given partitions only. */
export class Drain implements ChaosCommand {
  constructor(readonly partitions: readonly number[]) {}
  async run(system: ChaosSystem): Promise<void> {
    await system.drain(this.partitions);
  }
  toString = () => `drain partition${this.partitions.length === 1 ? '' : 's'} ${this.partitions.join(', ')}`;
}
