/**
 * What the sink makes of a target table's engine (`system.tables.engine`):
 * - `replicated`: `Replicated*MergeTree`, block dedup on, identity = Keeper table;
 * - `shared`: `Shared*MergeTree`, dedup on, supported with one host per shard;
 * - `plain`: the other `*MergeTree` engines, accepted with a warning (dedup needs
 *   `non_replicated_deduplication_window`), one host per shard;
 * - `distributed`: refused, it would re-route blocks and break the token-to-shard link;
 * - `other`: refused, outside the MergeTree family.
 */
export type EngineKind = 'replicated' | 'shared' | 'plain' | 'distributed' | 'other';

export function classifyEngine(engine: string): EngineKind {
  if (/^Replicated[A-Za-z]*MergeTree$/.test(engine)) return 'replicated';
  if (/^Shared[A-Za-z]*MergeTree$/.test(engine)) return 'shared';
  if (/^[A-Za-z]*MergeTree$/.test(engine)) return 'plain';
  if (engine === 'Distributed') return 'distributed';
  return 'other';
}
