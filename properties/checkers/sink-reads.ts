/**
 * What readers saw of a sink's table while it wrote: measured, never judged. The sinks promise
 * nothing about a reader's view, so these are figures for the report (seed 002's question asked of
 * the sinks), not anomalies: how often a reader saw part of one INSERT (a block is atomic on a
 * replica, so this should be none), how long a batch the sink split over shards was visible on
 * some shards and not the others through `_dist` (expected: the shards commit one by one), and how
 * often read-your-writes and monotonic reads did not hold (promised only by a sequential quorum
 * read with `select_sequential_consistency`).
 */

/** One read: the ids one statement saw, on one replica's local table or through `_dist` from it. */
export interface SinkRead {
  readonly via: 'local' | 'dist';
  readonly replica: string;
  /** Epoch ms, as the history's. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly ids: readonly string[];
}

/** One INSERT attempt as the sink invoked it: its batch (epoch, seq) and, sharded, its shard. */
export interface SinkInsert {
  readonly partition: number;
  readonly batch: number;
  readonly shard: string | null;
  readonly ids: readonly string[];
  /** Epoch ms the sink had the server's ok, for an acknowledged INSERT. */
  readonly ackedAt?: number;
}

/** One run's readers by how they read: counts, and per multi-shard batch how long it showed split. */
export interface RunReadTally {
  readonly via: 'local' | 'dist';
  readonly reads: number;
  readonly failedReads: number;
  /** Reads that saw some rows of one INSERT and not the rest. */
  readonly partInsert: number;
  /** Batches over several shards that a read saw whole by the end. */
  readonly batches: number;
  /** Reads that saw a batch on some of its shards and none of it on another. */
  readonly splitReads: number;
  /** Per batch that showed split, from the first split read's start to the last one's end. */
  readonly windowsMs: readonly number[];
  /**
   * Reads through `_dist` that missed an INSERT acknowledged before they began (read-your-writes
   * not kept); a replica's own reads are not asked, an INSERT may have gone to another shard.
   */
  readonly stale: number;
  /** Reads that lacked a row an earlier read saw (monotonic reads not kept): `_dist` against every earlier `_dist` read, a replica against its own. */
  readonly wentBack: number;
}

/**
 * The run's reads against its INSERTs. Only INSERTs whose id set no other INSERT shares in part
 * are asked "seen in part?": a retry that re-cut a batch (another spec, another topology) shares
 * ids with its first cut, and either may be the one that landed.
 */
export function tallyReads(
  reads: readonly SinkRead[],
  failed: { readonly local: number; readonly dist: number },
  inserts: readonly SinkInsert[],
): RunReadTally[] {
  const judged = wholeInsertSets(inserts);
  const batches = multiShardBatches(inserts);
  return (['local', 'dist'] as const).map((via) => {
    const mine = reads.filter((read) => read.via === via).sort((a, b) => a.startedAt - b.startedAt);
    const seenBy = mine.map((read) => new Set(read.ids));
    const partInsert = seenBy.filter((seen) => judged.some((ids) => seenInPart(ids, seen))).length;
    const stale =
      via === 'dist'
        ? mine.filter((read, index) =>
            inserts.some(
              (insert) =>
                insert.ackedAt !== undefined &&
                insert.ackedAt < read.startedAt &&
                insert.ids.some((id) => !seenBy[index]?.has(id)),
            ),
          ).length
        : 0;
    const earlier = new Map<string, Set<string>>();
    let wentBack = 0;
    mine.forEach((read, index) => {
      const seen = seenBy[index] ?? new Set<string>();
      const scope = via === 'dist' ? '' : read.replica;
      const before = earlier.get(scope) ?? new Set<string>();
      if ([...before].some((id) => !seen.has(id))) wentBack += 1;
      for (const id of seen) before.add(id);
      earlier.set(scope, before);
    });
    const seenAtEnd = seenBy.at(-1) ?? new Set<string>();
    const windowsMs: number[] = [];
    let counted = 0;
    const splitReadIndexes = new Set<number>();
    if (via === 'dist')
      for (const parts of batches) {
        if (!parts.every((ids) => ids.every((id) => seenAtEnd.has(id)))) continue;
        counted += 1;
        let from: number | undefined;
        let to = 0;
        mine.forEach((read, index) => {
          const seen = seenBy[index] ?? new Set<string>();
          const some = parts.some((ids) => ids.some((id) => seen.has(id)));
          const noneOfOne = parts.some((ids) => ids.every((id) => !seen.has(id)));
          if (!some || !noneOfOne) return;
          splitReadIndexes.add(index);
          from ??= read.startedAt;
          to = read.endedAt;
        });
        if (from !== undefined) windowsMs.push(to - from);
      }
    return {
      via,
      reads: mine.length,
      failedReads: failed[via],
      partInsert,
      batches: counted,
      splitReads: splitReadIndexes.size,
      windowsMs,
      stale,
      wentBack,
    };
  });
}

const seenInPart = (ids: readonly string[], seen: ReadonlySet<string>) => {
  const visible = ids.filter((id) => seen.has(id)).length;
  return visible > 0 && visible < ids.length;
};

/** The distinct id sets of the INSERTs, keeping those no other set overlaps without being equal. */
function wholeInsertSets(inserts: readonly SinkInsert[]): string[][] {
  const sets = new Map<string, string[]>();
  for (const insert of inserts) {
    const ids = [...new Set(insert.ids)].sort();
    if (ids.length > 0) sets.set(ids.join('\u0000'), ids);
  }
  const owners = new Map<string, number>();
  for (const ids of sets.values()) for (const id of ids) owners.set(id, (owners.get(id) ?? 0) + 1);
  return [...sets.values()].filter((ids) => ids.every((id) => owners.get(id) === 1));
}

/** Per (partition, batch) INSERTed on two shards or more: its ids by shard (sharded INSERTs only). */
function multiShardBatches(inserts: readonly SinkInsert[]): string[][][] {
  const byBatch = new Map<string, Map<string, Set<string>>>();
  for (const insert of inserts) {
    if (insert.shard === null) continue;
    const key = `${insert.partition}/${insert.batch}`;
    const shards = byBatch.get(key) ?? new Map<string, Set<string>>();
    byBatch.set(key, shards);
    const ids = shards.get(insert.shard) ?? new Set<string>();
    shards.set(insert.shard, ids);
    for (const id of insert.ids) ids.add(id);
  }
  return [...byBatch.values()]
    .filter((shards) => shards.size > 1)
    .map((shards) => [...shards.values()].map((ids) => [...ids]));
}
