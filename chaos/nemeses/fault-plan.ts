import type { ClusterDescription, ReplicaDescription } from '../../harness/cluster/index.ts';
import type { FaultProof, FaultType, UnknownKind } from '../../harness/flow/history/index.ts';
import type { HealMoment } from '../../properties/schedule/index.ts';
import type { Fault } from './fault.ts';

/** The INSERT a gate caught, placed in the cluster: what an aimed fault acts on. */
export interface AimTarget {
  readonly replica: ReplicaDescription;
  /** The other replicas of its shard (they fetch its parts). */
  readonly siblings: readonly ReplicaDescription[];
  readonly description: ClusterDescription;
}

/**
 * A schedule's `FaultSpec` made ready to aim (`planOf`, `families/registry.ts`): `aimAt` builds a
 * fresh fault aimed at the INSERT the executor's gate caught (its link, its replica, its Keeper
 * links), which is why the fault meets that INSERT by construction. `heals` says when it is
 * undone (`HealMoment`).
 */
export interface FaultPlan {
  readonly type: FaultType;
  /** The unknown outcome the fault is built to produce, if any. */
  readonly expects?: UnknownKind;
  readonly heals: HealMoment;
  /** Aim only at a batch's first attempt: the fault needs the server to write a new part. */
  readonly firstAttempt?: boolean;
  /** Aim only at an attempt with no other in flight to its shard (`GatePlan.aloneOnShard`). */
  readonly aloneOnShard?: boolean;
  /** What it must show besides its effect to count as fired (its family's, recorded on `fault-start`). */
  readonly proofs: readonly FaultProof[];
  aimAt(target: AimTarget): Fault;
  toString(): string;
}

/** The replica behind an attempt's `host:port` (the proxied client address the sink dialled). */
export function aimTarget(description: ClusterDescription, endpoint: string): AimTarget | undefined {
  for (const shard of description.shards) {
    const replica = shard.replicas.find((candidate) => new URL(candidate.http).host === endpoint);
    if (replica !== undefined)
      return { replica, siblings: shard.replicas.filter((other) => other !== replica), description };
  }
  return undefined;
}
