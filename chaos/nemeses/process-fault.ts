import { describeError } from '../../harness/base/index.ts';
import type { StartedCluster } from '../../harness/cluster/index.ts';
import type { FaultType, LogBeforeKill } from '../../harness/flow/history/index.ts';
import { serverInserts } from '../../harness/oracle/index.ts';
import { withDirectClient } from './direct-client.ts';
import type { Fault, FaultWindow, NemesisContext } from './fault.ts';
import type { FaultUndo } from './run-undo.ts';

type ProcessFaultType = Extract<
  FaultType,
  'replica_kill' | 'replica_pause' | 'keeper_pause' | 'keeper_kill' | 'broker_kill' | 'broker_pause'
>;

const KILLS: ReadonlySet<ProcessFaultType> = new Set(['replica_kill', 'keeper_kill', 'broker_kill']);

/**
 * Kills or pauses a member, recorded in the fault's undo list first (so its heal, or a later
 * reap, starts or resumes it: a pause is undone by `resume` whatever a health probe says).
 * Returns whether the member's state shows it; a backend that cannot tell (`unknown`) verifies
 * nothing.
 */
export async function stopMember(
  undo: FaultUndo,
  cluster: StartedCluster,
  member: string,
  how: 'kill' | 'pause',
): Promise<boolean> {
  if (how === 'kill') await undo.do({ kind: 'member-killed', member }, () => cluster.kill(member));
  else await undo.do({ kind: 'member-paused', member }, () => cluster.pause(member));
  return (await cluster.memberState(member)) === (how === 'kill' ? 'dead' : 'paused');
}

/** How long a kill waits to read its victim's log; one that cannot answer (its disk failing) is killed without. */
const LOG_BEFORE_KILL_MS = 5_000;

/**
 * Reads what a replica about to be killed logged of the run's INSERTs, after a flush: the
 * embedded engine restarts a node with empty system logs, and the oracle needs them to settle
 * that replica's earlier INSERTs (an aimed quorum INSERT of an earlier episode, say). Undefined
 * when it was not read (not a ClickHouse replica, paused or dead, the read failed).
 */
async function logBeforeKill(context: NemesisContext, member: string): Promise<LogBeforeKill | undefined> {
  const replica = context.cluster.description.shards
    .flatMap((shard) => shard.replicas)
    .find((candidate) => candidate.name === member);
  if (replica === undefined) return undefined;
  const state = await context.cluster.memberState(member);
  if (state === 'paused' || state === 'dead') return undefined;
  const askedAt = Date.now();
  try {
    return await withDirectClient(
      context,
      replica,
      async (client) => {
        await client.command({ query: 'SYSTEM FLUSH LOGS' });
        return { askedAt, inserts: await serverInserts(client, member, context.database) };
      },
      LOG_BEFORE_KILL_MS,
    );
  } catch (error) {
    context.log.debug({ member, err: describeError(error) }, 'the replica’s log could not be read before the kill');
    return undefined;
  }
}

/**
 * SIGKILL or SIGSTOP of a cluster member; heal restarts or continues it and waits for health.
 * `apply` verifies the process state; the INSERT it is aimed at must also be blocked by it.
 */
export class ProcessFault implements Fault {
  private undo: FaultUndo | undefined;

  constructor(
    readonly type: ProcessFaultType,
    private readonly member: string,
    /** A replica kill reads the victim's log first (`logBeforeKill`), for the paths whose judge settles INSERTs by it. */
    private readonly readLogFirst = false,
  ) {}

  readonly effect = 'blocked';

  get targets(): readonly string[] {
    return [this.member];
  }

  async apply(context: NemesisContext): Promise<FaultWindow> {
    const kept = this.readLogFirst ? await logBeforeKill(context, this.member) : undefined;
    // The fault's moment is the kill's, not the reading's before it: holds are counted from it.
    const appliedAt = Date.now();
    const own = (this.undo = context.undo.fault());
    const verified = await own.applying(() =>
      stopMember(own, context.cluster, this.member, KILLS.has(this.type) ? 'kill' : 'pause'),
    );
    return {
      type: this.type,
      description: this.toString(),
      targets: this.targets,
      appliedAt,
      verified,
      ...(kept === undefined ? {} : { logBeforeKill: kept }),
    };
  }

  async heal({ cluster }: NemesisContext, window: FaultWindow): Promise<void> {
    await this.undo?.undo();
    window.healedAt ??= Date.now();
    await cluster.waitHealthy(this.member);
  }

  toString(): string {
    return `${KILLS.has(this.type) ? 'kill' : 'pause'}(${this.member})`;
  }
}

export const replicaKill = (member: string) => new ProcessFault('replica_kill', member);
/**
 * A replica kill on the sinks' path: the sinks' judge settles INSERTs by the replicas' logs, so it
 * reads the victim's first (about 0.2 s). The Kafka engine and the staged loader kill without it:
 * their kills are timed to a moment (between a block's write and its commit), and their checkers
 * read no query_log.
 */
export const replicaKillReadingLog = (member: string) => new ProcessFault('replica_kill', member, true);
export const replicaPause = (member: string) => new ProcessFault('replica_pause', member);
export const keeperPause = (keeper: string) => new ProcessFault('keeper_pause', keeper);
/** A Kafka broker killed or paused (`cluster up --kafka N`): the Kafka engine's scenarios. */
export const brokerStop = (broker: string, how: 'kill' | 'pause') =>
  new ProcessFault(how === 'kill' ? 'broker_kill' : 'broker_pause', broker);
