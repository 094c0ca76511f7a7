import type fc from 'fast-check';
import type { Fault } from '../../chaos/nemeses/fault.ts';
import type { CrashPoint } from '../../harness/flow/runtime/crash-points.ts';
import type { RawSinkSpec } from '../arbitraries/arb-sink-spec.ts';
import type { ChaosModel } from './chaos-model.ts';
import { targetsFree } from './chaos-model.ts';
import type { ChaosSystem } from './chaos-system.ts';

type ChaosCommand = fc.AsyncCommand<ChaosModel, ChaosSystem>;

/** Pushes `epochs` epochs of every partition through the sink. */
export class WriteEpochs implements ChaosCommand {
  constructor(readonly epochs: number) {}
  check = () => true;
  async run(model: ChaosModel, system: ChaosSystem): Promise<void> {
    await system.writeEpochs(this.epochs);
    model.epochs += this.epochs;
  }
  toString = () => `write(${this.epochs} epoch${this.epochs === 1 ? '' : 's'})`;
}

/** Starts a fault; it stays until a HealFault (or the final heal). */
export class InjectFault implements ChaosCommand {
  constructor(readonly fault: Fault) {}
  check = (model: Readonly<ChaosModel>) => model.activeFaults.length < 2 && targetsFree(model as ChaosModel, this.fault);
  async run(model: ChaosModel, system: ChaosSystem): Promise<void> {
    await system.applyFault(this.fault);
    model.activeFaults.push(this.fault);
  }
  toString = () => `inject ${this.fault.toString()}`;
}

/** Heals the oldest active fault. */
export class HealFault implements ChaosCommand {
  check = (model: Readonly<ChaosModel>) => model.activeFaults.length > 0;
  async run(model: ChaosModel, system: ChaosSystem): Promise<void> {
    const fault = model.activeFaults.shift();
    if (fault !== undefined) await system.healFault(fault);
  }
  toString = () => 'heal oldest fault';
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

/** Restarts the sink with another spec: dynamic parameters, topology or class. */
export class RestartWithSpec implements ChaosCommand {
  constructor(
    readonly spec: RawSinkSpec,
    readonly label: string,
  ) {}
  check = () => true;
  async run(_model: ChaosModel, system: ChaosSystem): Promise<void> {
    await system.restartWithSpec(this.spec, this.label);
  }
  toString = () => `restart with ${this.label}`;
}
