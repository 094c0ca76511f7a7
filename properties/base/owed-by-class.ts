import type { DeliveryGuarantee, SinkClassName } from '../../sinks/index.ts';

/** What the seed makes a class owe, as the checkers hold it against the class. */
export interface OwedByClass {
  /** On a table that keeps block dedup; `chaos/executor/target-table.ts` degrades it where the table cannot. */
  readonly guarantee: DeliveryGuarantee;
  /** Every INSERT carries `insert_deduplication_token`: the batch bound (with `:<shard>` when sharded). */
  readonly sendsToken: boolean;
  /** Cuts deterministic batches, so an epoch may hold several. */
  readonly batches: boolean;
}

/**
 * The checkers' own table of the classes, from the seed (`sink-family.md` §1), not from the sinks'
 * descriptors (`sinks/sink-classes.ts`, which the sinks' write path reads too): a class that
 * declared less than it owes would otherwise be judged by its own declaration.
 */
export const OWED_BY_CLASS: Readonly<Record<SinkClassName, OwedByClass>> = {
  ClickHouseBatchingSink: { guarantee: 'exactly-once', sendsToken: true, batches: true },
  ShardedClickHouseBatchingSink: { guarantee: 'exactly-once', sendsToken: true, batches: true },
  AtLeastOnceClickHouseSink: { guarantee: 'at-least-once', sendsToken: false, batches: false },
  AtMostOnceClickHouseSink: { guarantee: 'at-most-once', sendsToken: false, batches: false },
};
