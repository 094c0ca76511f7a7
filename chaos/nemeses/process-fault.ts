import type { Fault, FaultWindow, NemesisContext } from './fault.ts';
import type { FaultType } from '../../harness/flow/history/fault-type.ts';

type ProcessFaultType = Extract<FaultType, 'replica_kill' | 'replica_pause' | 'keeper_pause' | 'keeper_kill'>;

const KILLS: ReadonlySet<ProcessFaultType> = new Set(['replica_kill', 'keeper_kill']);

/**
 * SIGKILL or SIGSTOP of a cluster member; heal restarts or continues it and waits for health.
 * `apply` verifies the process state; the INSERT it is aimed at must also be blocked by it.
 */
export class ProcessFault implements Fault {
  constructor(
    readonly type: ProcessFaultType,
    private readonly member: string,
  ) {}

  readonly effect = 'blocked';

  get targets(): readonly string[] {
    return [this.member];
  }

  async apply({ cluster }: NemesisContext): Promise<FaultWindow> {
    const appliedAt = Date.now();
    if (KILLS.has(this.type)) await cluster.kill(this.member);
    else await cluster.pause(this.member);
    const state = await cluster.memberState(this.member);
    const verified = KILLS.has(this.type) ? state === 'dead' : state === 'paused';
    return { type: this.type, description: this.toString(), targets: this.targets, appliedAt, verified };
  }

  async heal({ cluster }: NemesisContext, window: FaultWindow): Promise<void> {
    const state = await cluster.memberState(this.member);
    if (state === 'dead') await cluster.start(this.member);
    else if (state === 'paused') await cluster.resume(this.member);
    window.healedAt ??= Date.now();
    await cluster.waitHealthy(this.member);
  }

  toString(): string {
    return `${KILLS.has(this.type) ? 'kill' : 'pause'}(${this.member})`;
  }
}

export const replicaKill = (member: string) => new ProcessFault('replica_kill', member);
export const replicaPause = (member: string) => new ProcessFault('replica_pause', member);
export const keeperPause = (keeper: string) => new ProcessFault('keeper_pause', keeper);
export const keeperKill = (keeper: string) => new ProcessFault('keeper_kill', keeper);
