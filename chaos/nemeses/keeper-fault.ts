import { keeperRole, type KeeperRole } from '../../harness/cluster/index.ts';
import { HarnessError } from '../../harness/base/index.ts';
import type { FaultType } from '../../harness/flow/history/index.ts';
import type { Fault, FaultEffect, FaultWindow, NemesisContext } from './fault.ts';
import { stopMember } from './process-fault.ts';
import type { FaultUndo } from './run-undo.ts';

/**
 * A leader fault stops every write of the ensemble until a new leader is elected. Measured over 24
 * aimed INSERTs here: a killed leader held its INSERT 0.72-1.55 s (its peers see the socket close at
 * once), a paused one until the sink's timeout (3-6 s); an unfaulted INSERT takes 15-75 ms.
 */
const LEADER_FAULT_SLOWER_THAN_MS = 500;

/** Each member's role as it answers now (`srvr`), leader first. */
async function ensembleRoles(context: NemesisContext): Promise<{ name: string; role: KeeperRole }[]> {
  const roles = await Promise.all(
    context.cluster.description.keepers.map(async ({ name, address }) => ({ name, role: await keeperRole(address) })),
  );
  const rank = (role: KeeperRole) => ['leader', 'standalone', 'follower', 'unreachable'].indexOf(role);
  return roles.sort((a, b) => rank(a.role) - rank(b.role));
}

/**
 * Faults that pick their members when applied, by what the ensemble says of itself: its leader
 * (paused or killed), or a majority of it, leader included (paused: the ensemble has no quorum).
 * The roles are the cluster's at that moment, so a leader elected by an earlier episode is found.
 */
class EnsembleFault implements Fault {
  private members: readonly string[] = [];
  private undo: FaultUndo | undefined;

  constructor(
    readonly type: Extract<FaultType, 'keeper_pause' | 'keeper_kill' | 'keeper_quorum_loss'>,
    readonly effect: FaultEffect,
  ) {}

  get targets(): readonly string[] {
    return this.members;
  }

  async apply(context: NemesisContext): Promise<FaultWindow> {
    const roles = await ensembleRoles(context);
    const [leader] = roles;
    if (leader === undefined || (leader.role !== 'leader' && leader.role !== 'standalone'))
      throw new HarnessError(
        'CHAOS_NO_KEEPER_LEADER',
        `no Keeper member says it leads (${roles.map((member) => `${member.name}: ${member.role}`).join(', ')}); the ensemble was not healthy before the fault`,
      );
    const chosen = this.type === 'keeper_quorum_loss' ? roles.slice(0, Math.floor(roles.length / 2) + 1) : [leader];
    this.members = chosen.map(({ name }) => name);
    const appliedAt = Date.now();
    const own = (this.undo = context.undo.fault());
    // Stopped one by one: a majority half-stopped when a member fails is undone by `applying`.
    const seen = await own.applying(async () => {
      const states: boolean[] = [];
      for (const member of this.members)
        states.push(await stopMember(own, context.cluster, member, this.type === 'keeper_kill' ? 'kill' : 'pause'));
      return states;
    });
    return {
      type: this.type,
      description: this.toString(),
      targets: this.targets,
      appliedAt,
      verified: seen.every(Boolean),
      ...(this.effect === 'stalled' ? { slowerThanMs: LEADER_FAULT_SLOWER_THAN_MS } : {}),
    };
  }

  async heal(context: NemesisContext, window: FaultWindow): Promise<void> {
    await this.undo?.undo();
    window.healedAt ??= Date.now();
    await Promise.all(this.members.map((member) => context.cluster.waitHealthy(member)));
  }

  toString(): string {
    const members = this.members.length > 0 ? this.targets.join('+') : 'chosen when applied';
    if (this.type === 'keeper_quorum_loss') return `keeper_quorum_loss(pause ${members}: a majority, leader first)`;
    return `${this.type === 'keeper_kill' ? 'kill' : 'pause'}(the Keeper leader: ${members})`;
  }
}

/** The leader stopped: writes wait for an election, so the INSERT it meets is slow, or fails first. */
export const keeperLeaderPause = () => new EnsembleFault('keeper_pause', 'stalled');
export const keeperLeaderKill = () => new EnsembleFault('keeper_kill', 'stalled');
/** A majority paused: nothing commits until it is back; the INSERT it meets hangs past the sink's timeout. */
export const keeperQuorumLoss = () => new EnsembleFault('keeper_quorum_loss', 'blocked');
