import type fc from 'fast-check';
import type { CrashPoint } from '../../harness/flow/runtime/crash-points.ts';
import type { RawSinkSpec } from '../arbitraries/arb-sink-spec.ts';
import type { ChaosModel } from './chaos-model.ts';
import type { ChaosSystem, ScheduledFault } from './chaos-system.ts';

export type ChaosCommand = fc.AsyncCommand<ChaosModel, ChaosSystem>;

/** Pushes `epochs` epochs of every partition through the sink. */
export class WriteEpochs implements ChaosCommand {
  constructor(readonly epochs: number) {}
  check = () => true;
  async run(model: ChaosModel, system: ChaosSystem): Promise<void> {
    await system.writeEpochs(this.epochs);
    model.epochs += this.epochs;
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
  check = () => true;
  async run(model: ChaosModel, system: ChaosSystem): Promise<void> {
    await system.faultEpisode(this.plan, this.epochs, this.holdMs);
    model.epochs += this.epochs;
    model.faults += 1;
  }
  toString = () => `${this.plan.toString()}${this.plan.holds ? ` for ${this.holdMs}ms` : ''} at the first INSERT of write(${this.epochs})`;
}

/** Kills the sink process at a named point and restarts it from its store. */
export class CrashSink implements ChaosCommand {
  constructor(readonly point: CrashPoint) {}
  check = () => true;
  async run(model: ChaosModel, system: ChaosSystem): Promise<void> {
    await system.crashSink(this.point);
    model.crashes += 1;
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
  check = () => true;
  async run(model: ChaosModel, system: ChaosSystem): Promise<void> {
    await system.reconfigureWhileWriting(this.dynamic, this.epochs, this.afterMs);
    model.epochs += this.epochs;
    model.reconfigurations += 1;
  }
  toString = () => `reconfigure ${JSON.stringify(this.dynamic)} ${this.afterMs}ms into the first INSERT of write(${this.epochs})`;
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
  check = () => true;
  async run(_model: ChaosModel, system: ChaosSystem): Promise<void> {
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
  check = () => true;
  async run(model: ChaosModel, system: ChaosSystem): Promise<void> {
    await system.holdAndWrite(this.epochs, this.spec, this.label);
    model.epochs += this.epochs;
  }
  toString = () => `restart with ${this.label}, write(${this.epochs}) with delivery held`;
}

/** Drains the given partitions only. */
export class Drain implements ChaosCommand {
  constructor(readonly partitions: readonly number[]) {}
  check = () => true;
  async run(_model: ChaosModel, system: ChaosSystem): Promise<void> {
    await system.drain(this.partitions);
  }
  toString = () => `drain partition${this.partitions.length === 1 ? '' : 's'} ${this.partitions.join(', ')}`;
}
