import type { ReplicaTruth } from './observations.ts';

/** What a delivery owed: the messages acknowledged, and where each must live. */
export interface DeliveryExpectation {
  readonly replicas: readonly ReplicaTruth[];
  readonly acknowledged: Iterable<string>;
  /**
   * The shards a message may live on, or null when any shard is fine (unsharded forms). More
   * than one when INSERTs under different routings carried it (a re-send after a spec change).
   */
  readonly expectedShards: (messageId: string) => readonly string[] | null;
}

export interface Misplacement {
  readonly id: string;
  readonly replica: string;
  /** The shards it may live on, `|`-joined. */
  readonly expected: string;
}

export interface Divergence {
  /** A replica that is not its shard's first. */
  readonly replica: string;
  /** The ids whose count differs from the shard's first replica. */
  readonly ids: readonly string[];
}

/**
 * Where the replicas depart from exactly once on the right shard. Empty lists everywhere mean
 * every replica holds each acknowledged message of its shard once and nothing else.
 */
export interface DeliveryDiff {
  /** Rows per message summed over shards, each shard read on its first replica. */
  readonly present: ReadonlyMap<string, number>;
  /** Acknowledged and on no shard. */
  readonly lost: readonly string[];
  /** More than one row over the shards. */
  readonly duplicated: readonly string[];
  /** Present although never acknowledged. */
  readonly unacknowledged: readonly string[];
  /** A row on a replica of a shard no routing of an INSERT that carried it names. */
  readonly misplaced: readonly Misplacement[];
  /** Replicas that differ from their shard's first replica (only those that differ). */
  readonly diverged: readonly Divergence[];
}

/** Ids whose counts differ between `a` and `b` (absent counts as 0), sorted. */
export function differingIds(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): string[] {
  const ids = new Set([...a.keys(), ...b.keys()]);
  return [...ids].filter((id) => (a.get(id) ?? 0) !== (b.get(id) ?? 0)).sort();
}

/**
 * The one judgement of lost / duplicated / misplaced / diverged rows, shared by the chaos job's
 * checkers and the integration tests. Counting each shard on its first replica and flagging the
 * others apart keeps one shard's two copies from reading as a duplicate.
 */
export function deliveryDiff({ replicas, acknowledged, expectedShards }: DeliveryExpectation): DeliveryDiff {
  const first = new Map<string, ReadonlyMap<string, number>>();
  const present = new Map<string, number>();
  const diverged: Divergence[] = [];
  const misplaced: Misplacement[] = [];
  for (const { shard, replica, counts } of replicas) {
    for (const id of counts.keys()) {
      const expected = expectedShards(id);
      if (expected !== null && !expected.includes(shard)) misplaced.push({ id, replica, expected: expected.join('|') });
    }
    const reference = first.get(shard);
    if (reference !== undefined) {
      const ids = differingIds(reference, counts);
      if (ids.length > 0) diverged.push({ replica, ids });
      continue;
    }
    first.set(shard, counts);
    for (const [id, count] of counts) present.set(id, (present.get(id) ?? 0) + count);
  }
  const acked = new Set(acknowledged);
  const held = [...present].filter(([, count]) => count > 0).map(([id]) => id);
  return {
    present,
    lost: [...acked].filter((id) => (present.get(id) ?? 0) === 0).sort(),
    duplicated: held.filter((id) => (present.get(id) ?? 0) > 1).sort(),
    unacknowledged: held.filter((id) => !acked.has(id)).sort(),
    misplaced,
    diverged,
  };
}
