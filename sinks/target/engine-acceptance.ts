import { SinkError } from '../errors.ts';
import type { EngineKind } from '../topology/engine-kind.ts';

export interface SlotTarget {
  /** `<database>.<table>` */
  readonly table: string;
  /** The shard name, or undefined for the unsharded forms. */
  readonly shard?: string;
  readonly hosts: readonly string[];
  readonly engine: string;
  readonly kind: EngineKind;
  /** The table's `non_replicated_deduplication_window`, for plain MergeTree. */
  readonly nonReplicatedDedupWindow?: number;
}

export type EngineAcceptance =
  { readonly accepted: true; readonly warning?: string } | { readonly accepted: false; readonly error: SinkError };

/**
 * The target-table rules of section 2, for one slot (a shard or the unsharded table), every
 * class alike: Replicated*MergeTree accepted; Distributed and non-MergeTree engines refused;
 * plain MergeTree and SharedMergeTree accepted with one host only, plain MergeTree with a
 * warning that exactly-once degrades unless `non_replicated_deduplication_window` is set.
 */
export function checkEngineAcceptance(target: SlotTarget): EngineAcceptance {
  const where = `${target.table}${target.shard === undefined ? '' : ` (shard '${target.shard}')`}`;
  const refuse = (detail: string): EngineAcceptance => ({
    accepted: false,
    error: new SinkError('SINK_TARGET_INVALID', `Target ${where} ${detail}`),
  });
  switch (target.kind) {
    case 'replicated':
      return { accepted: true };
    case 'distributed':
      return refuse(
        'is a Distributed table: the sink routes rows itself, and a Distributed target would re-route the block and break the link between dedup token and shard; point the sink at the local table of each shard',
      );
    case 'other':
      return refuse(
        `has engine ${target.engine}, outside the MergeTree family; use a Replicated*MergeTree (recommended), SharedMergeTree or MergeTree table`,
      );
    case 'shared':
    case 'plain':
      if (target.hosts.length > 1) {
        return refuse(
          `has engine ${target.engine} on ${target.hosts.length} hosts (${target.hosts.join(', ')}): without Keeper replication the sink cannot prove they are one logical table; list one host, or use Replicated*MergeTree`,
        );
      }
      if (
        target.kind === 'plain' &&
        !(target.nonReplicatedDedupWindow !== undefined && target.nonReplicatedDedupWindow > 0)
      ) {
        return {
          accepted: true,
          warning: `Target ${where} has engine ${target.engine} without block deduplication: exactly-once degrades to at-least-once unless the table sets non_replicated_deduplication_window`,
        };
      }
      return { accepted: true };
  }
}
