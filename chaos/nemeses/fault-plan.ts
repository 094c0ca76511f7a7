import type { ClusterDescription, ReplicaDescription } from '../../harness/cluster/description.ts';
import type { UnknownKind } from '../../harness/flow/history/history-events.ts';
import { HarnessError } from '../../harness/errors.ts';
import type { HealMoment } from '../../properties/schedule/chaos-system.ts';
import type { Fault } from './fault.ts';
import type { FaultType } from '../../harness/flow/history/fault-type.ts';
import { keeperLeaderKill, keeperLeaderPause, keeperQuorumLoss } from './keeper-fault.ts';
import { keeperPause, replicaKill, replicaPause } from './process-fault.ts';
import { interserverCut, keeperLinkCut, proxyDown, quorumInterserverCut } from './proxy-fault.ts';
import {
  constraintViolated,
  notEnoughSpace,
  partWriterFailpoint,
  tableDetached,
  tooManyParts,
  type ServerErrorType,
} from './table-fault.ts';
import { bandwidth, latency, limitData, resetPeer, slicer, timeout } from './toxic-fault.ts';

/** The INSERT a gate caught, placed in the cluster: what an aimed fault acts on. */
export interface AimTarget {
  readonly replica: ReplicaDescription;
  /** The other replicas of its shard (they fetch its parts). */
  readonly siblings: readonly ReplicaDescription[];
  readonly description: ClusterDescription;
}

/**
 * A fault as a schedule names it, before it meets anything: immutable, so shrink re-runs and
 * replays can share it. `aimAt` builds a fresh fault aimed at the INSERT the executor's gate
 * caught (its link, its replica, its Keeper links), which is why the fault meets that INSERT by
 * construction. `heals` says when it is undone (`HealMoment`).
 */
export interface FaultPlan {
  readonly type: FaultType;
  /** The unknown outcome the fault is built to produce, if any. */
  readonly expects?: UnknownKind;
  readonly heals: HealMoment;
  /** Aim only at a batch's first attempt: the fault needs the server to write a new part. */
  readonly firstAttempt?: boolean;
  aimAt(target: AimTarget): Fault;
  toString(): string;
}

export function isFaultPlan(plan: { readonly type: string }): plan is FaultPlan {
  return typeof (plan as Partial<FaultPlan>).aimAt === 'function';
}

class AimedPlan implements FaultPlan {
  constructor(
    readonly type: FaultType,
    private readonly label: string,
    private readonly build: (target: AimTarget) => Fault,
    readonly heals: HealMoment = 'insert-ended',
    readonly expects?: UnknownKind,
    readonly firstAttempt = false,
  ) {}

  aimAt(target: AimTarget): Fault {
    return this.build(target);
  }

  toString(): string {
    return `${this.type}(${this.label})`;
  }
}

const link = (target: AimTarget) => [target.replica.proxies.client];

/** The INSERT's response is cut as it arrives: the INSERT committed, the sink never hears. */
export const resetPeerPlan = () =>
  new AimedPlan('reset_peer', "the INSERT's response", (t) => resetPeer(link(t)), 'insert-ended', 'landed');
export const limitDataPlan = (bytes: number) =>
  new AimedPlan(
    'limit_data',
    `the INSERT's response after ${bytes}B`,
    (t) => limitData(link(t), bytes),
    'insert-ended',
    'landed',
  );
export const responseTimeoutPlan = (ms: number) =>
  new AimedPlan('timeout', `the INSERT's response, ${ms}ms`, (t) => timeout(link(t), ms), 'insert-ended', 'landed');
/** The INSERT's request is swallowed, then the connection closes: nothing reached the server. */
export const requestTimeoutPlan = (ms: number) =>
  new AimedPlan(
    'timeout',
    `the INSERT's request, ${ms}ms`,
    (t) => timeout(link(t), ms, 'upstream'),
    'insert-ended',
    'absent',
  );

export const latencyPlan = (ms: number, jitter: number) =>
  new AimedPlan('latency', `the INSERT's link, ${ms}ms±${jitter}`, (t) => latency(link(t), ms, jitter));
export const bandwidthPlan = (kbPerSecond: number) =>
  new AimedPlan('bandwidth', `the INSERT's link, ${kbPerSecond}KB/s`, (t) => bandwidth(link(t), kbPerSecond));
export const slicerPlan = (size: number, delayUs: number) =>
  new AimedPlan('slicer', `the INSERT's link, ${size}B/${delayUs}us`, (t) => slicer(link(t), size, delayUs));
export const proxyDownPlan = () => new AimedPlan('proxy_down', "the INSERT's link", (t) => proxyDown(link(t)));

export const replicaKillPlan = () =>
  new AimedPlan('replica_kill', "the INSERT's replica", (t) => replicaKill(t.replica.name), 'after-hold');
export const replicaPausePlan = () =>
  new AimedPlan('replica_pause', "the INSERT's replica", (t) => replicaPause(t.replica.name), 'after-hold');
/** The replica's replication endpoint: its siblings fail to fetch the part the INSERT writes (a batch's first attempt: a replay may write none). */
export const interserverCutPlan = () =>
  new AimedPlan(
    'interserver_cut',
    "the INSERT's replica",
    (t) =>
      interserverCut(
        [t.replica.proxies.interserver],
        t.siblings.map((sibling) => sibling.name),
      ),
    'after-hold',
    undefined,
    true,
  );

/** The sibling a quorum INSERT waits for (the first other replica of its shard). */
function quorumSibling(target: AimTarget): string {
  const [sibling] = target.siblings;
  if (sibling === undefined)
    throw new HarnessError(
      'CHAOS_NO_SIBLING',
      `replica ${target.replica.name} has no sibling in its shard: a quorum fault needs 2 or more replicas per shard`,
    );
  return sibling.name;
}

const DURING_QUORUM = 'while its quorum is awaited';

const onQuorumSibling = (type: 'replica_pause' | 'replica_kill', fault: (member: string) => Fault) => () =>
  new AimedPlan(
    type,
    `a sibling of the INSERT's replica, ${DURING_QUORUM}`,
    (t) => fault(quorumSibling(t)),
    'insert-ended',
    'landed',
    true,
  );

/**
 * Faults on what a quorum INSERT waits for, applied right before its request and healed when it
 * ended: its sibling stopped or killed, or its own replication endpoint cut. The INSERT commits
 * its part locally and then fails its quorum (UNKNOWN_STATUS_OF_INSERT); the sink replays.
 */
export const QUORUM_PLANS = {
  replica_pause: onQuorumSibling('replica_pause', replicaPause),
  replica_kill: onQuorumSibling('replica_kill', replicaKill),
  interserver_cut: () =>
    new AimedPlan(
      'interserver_cut',
      `the INSERT's replica, ${DURING_QUORUM}`,
      (t) => quorumInterserverCut([t.replica.proxies.interserver]),
      'insert-ended',
      'landed',
      true,
    ),
} as const satisfies Readonly<Record<string, () => FaultPlan>>;

export const keeperPausePlan = (keeper: string) =>
  new AimedPlan('keeper_pause', keeper, () => keeperPause(keeper), 'after-hold');
export const keeperLinkCutPlan = (scope: 'replica' | 'all') =>
  new AimedPlan(
    'keeper_link_cut',
    scope === 'replica' ? "the INSERT's replica" : 'all replicas',
    (t) =>
      keeperLinkCut(
        scope === 'replica'
          ? t.replica.proxies.keepers
          : t.description.shards.flatMap((shard) => shard.replicas.flatMap((replica) => replica.proxies.keepers)),
        scope === 'replica' ? t.replica.name : 'all replicas',
      ),
    'after-hold',
  );

/**
 * Faults of a Keeper ensemble (three members), each aimed at an INSERT and healed when it ended:
 * its leader paused or killed (found when applied, by `srvr`), a majority paused (no quorum), and
 * the INSERT's replica cut from every member while the ensemble stays healthy.
 */
export const KEEPER_ENSEMBLE_PLANS = {
  leader_pause: () => new AimedPlan('keeper_pause', 'the Keeper leader', () => keeperLeaderPause(), 'insert-ended'),
  leader_kill: () => new AimedPlan('keeper_kill', 'the Keeper leader', () => keeperLeaderKill(), 'insert-ended'),
  quorum_loss: () =>
    new AimedPlan('keeper_quorum_loss', 'a majority of the ensemble', () => keeperQuorumLoss(), 'insert-ended'),
  replica_cut: () => keeperLinkCutPlan('replica'),
} as const satisfies Readonly<Record<string, () => FaultPlan>>;

/**
 * Every replica of every shard refuses INSERTs into the run's tables with a server error the seed
 * calls unclassified, until the writes ended: the sink's whole retry budget meets it.
 */
const serverErrorPlan = (type: ServerErrorType, build: (replicas: readonly ReplicaDescription[]) => Fault) => () =>
  new AimedPlan(
    type,
    'every replica',
    (t) => build(t.description.shards.flatMap((shard) => shard.replicas)),
    'writes-ended',
  );

export const SERVER_ERROR_PLANS = {
  too_many_parts: serverErrorPlan('too_many_parts', tooManyParts),
  not_enough_space: serverErrorPlan('not_enough_space', notEnoughSpace),
  table_detached: serverErrorPlan('table_detached', tableDetached),
  constraint_violated: () =>
    new AimedPlan(
      'constraint_violated',
      'every replica',
      (t) => constraintViolated(t.description.shards.map((shard) => shard.replicas)),
      'writes-ended',
    ),
  part_writer_failpoint: serverErrorPlan('part_writer_failpoint', partWriterFailpoint),
} as const satisfies Readonly<Record<ServerErrorType, () => FaultPlan>>;

/** The replica behind an attempt's `host:port` (the proxied client address the sink dialled). */
export function aimTarget(description: ClusterDescription, endpoint: string): AimTarget | undefined {
  for (const shard of description.shards) {
    const replica = shard.replicas.find((candidate) => new URL(candidate.http).host === endpoint);
    if (replica !== undefined)
      return { replica, siblings: shard.replicas.filter((other) => other !== replica), description };
  }
  return undefined;
}
