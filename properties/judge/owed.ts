import type { DeliveryGuarantee, SinkWarningKind } from '../../sinks/index.ts';

/**
 * The table a scenario's sink writes to. `replicated` (the default): ReplicatedMergeTree on every
 * replica. `single-host-merge-tree`: plain MergeTree, written and read on the first replica of
 * each shard only (the seed accepts it with one host per shard), with
 * `non_replicated_deduplication_window` set on every other run: without it the seed's
 * exactly-once degrades to at-least-once, and every class must warn so. `short-dedup-window`:
 * ReplicatedMergeTree whose dedup window is 1 s on every other run (a cleanup thread that runs
 * every second), against a spec whose `replay_horizon` is 10 minutes: the sink must warn that
 * the window is shorter, and exactly-once is owed only where it did not have to.
 * `replicated-with-view`: ReplicatedMergeTree with a materialized view behind it
 * (`events_mv` into `events_view_rep`), the sink's user without the view's block dedup
 * (`deduplicate_blocks_in_dependent_materialized_views = 0`) on every other run: the view is
 * judged too, owed exactly-once only where its blocks are deduplicated.
 */
export type TargetTable = 'replicated' | 'single-host-merge-tree' | 'short-dedup-window' | 'replicated-with-view';

/**
 * The guarantee a class owes on the run's table. The seed degrades exactly-once where the table
 * cannot drop a replay: plain MergeTree without a window, and a window shorter than the
 * `replay_horizon` (which the sink warns of).
 */
export function owedGuarantee(guarantee: DeliveryGuarantee, target: TargetTable, dedupOff: boolean): DeliveryGuarantee {
  const degrades = target === 'single-host-merge-tree' || target === 'short-dedup-window';
  return guarantee === 'exactly-once' && degrades && dedupOff ? 'at-least-once' : guarantee;
}

/**
 * What a class owes on the view behind the target, or undefined when there is none. A block
 * retried with its token is dropped by the table but reaches the view again unless the view's
 * blocks are deduplicated too (ClickHouse #76110, since 24.7): exactly-once degrades there to
 * at-least-once, a documented limit of the configuration, not of the sink.
 */
export function owedOnView(
  guarantee: DeliveryGuarantee,
  target: TargetTable,
  dedupOff: boolean,
): DeliveryGuarantee | undefined {
  if (target !== 'replicated-with-view') return undefined;
  return guarantee === 'exactly-once' && dedupOff ? 'at-least-once' : guarantee;
}

/** The warning a run's table makes the sink owe or forbids (judged both ways), if the run judges one. */
export function judgedWarning(
  target: TargetTable,
  dedupOff: boolean,
): { readonly kind: SinkWarningKind; readonly expected: boolean } | undefined {
  if (target === 'single-host-merge-tree') return { kind: 'no-block-dedup', expected: dedupOff };
  if (target === 'short-dedup-window') return { kind: 'dedup-window-short', expected: dedupOff };
  return undefined;
}
