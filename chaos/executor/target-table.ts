import type { ClusterDescription } from '../../harness/cluster/description.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/arb-sink-spec.ts';
import type { ClusterEndpoints } from '../../properties/arbitraries/cluster-endpoints.ts';
import type { DeliveryGuarantee } from '../../sinks/sink-classes.ts';
import type { TargetTable } from '../scenarios/scenario.ts';

/** The window a single-host run sets when it keeps block dedup (any value > 0 keeps the token's dedup). */
const NON_REPLICATED_WINDOW = 1000;

/** The replica of each shard a single-host target lives on: the first one. */
export function singleHosts(description: ClusterDescription): string[] {
  return description.shards.flatMap((shard) => shard.replicas.slice(0, 1).map((replica) => replica.name));
}

/** The endpoints a spec may name: every replica, or the first of each shard for a single-host target. */
export function targetEndpoints(endpoints: ClusterEndpoints, target: TargetTable): ClusterEndpoints {
  if (target === 'replicated') return endpoints;
  return {
    port: endpoints.port,
    shards: new Map([...endpoints.shards].map(([shard, hosts]) => [shard, hosts.slice(0, 1)])),
  };
}

/**
 * Engine and settings of the run's table. `dedupOff` turns ClickHouse's block dedup off: the
 * replicated window at 0 for a token-less class, no `non_replicated_deduplication_window` on a
 * single host (where that is also the seed's degraded case for exactly-once).
 */
export function tableEngine(target: TargetTable, dedupOff: boolean): { engine?: string; settings: string[] } {
  if (target === 'single-host-merge-tree')
    return {
      engine: 'MergeTree',
      settings: dedupOff ? [] : [`non_replicated_deduplication_window = ${NON_REPLICATED_WINDOW}`],
    };
  return {
    settings: [
      // A chaos table holds a few hundred rows, so one part a SIGKILLed replica wrote but never
      // committed to Keeper can be half of it, and ClickHouse's start-up sanity check (default
      // ratio 0.5) would keep that replica read-only for good. At 1 it detaches such parts, as
      // it does on any table of real size; Keeper's record stays the truth.
      'replicated_max_ratio_of_wrong_parts = 1',
      // Only for the classes without a token: the window also carries token dedup, which
      // exactly-once rests on.
      ...(dedupOff ? ['replicated_deduplication_window = 0'] : []),
    ],
  };
}

/** Whether a run turns the server's block dedup off: on a single host every class alternates, exactly-once included. */
export function dedupMayBeOff(target: TargetTable, usesToken: boolean): boolean {
  return target === 'single-host-merge-tree' || !usesToken;
}

/** The guarantee a class owes on the run's table: the seed degrades exactly-once on plain MergeTree without a window. */
export function owedGuarantee(guarantee: DeliveryGuarantee, target: TargetTable, dedupOff: boolean): DeliveryGuarantee {
  return guarantee === 'exactly-once' && target === 'single-host-merge-tree' && dedupOff ? 'at-least-once' : guarantee;
}

/** Whether the table lacks block dedup in the seed's sense (so every class must warn `no-block-dedup`). */
export function lacksBlockDedup(target: TargetTable, dedupOff: boolean): boolean {
  return target === 'single-host-merge-tree' && dedupOff;
}

/**
 * The configuration a run wrote under, as the report's configuration matrix names it: the table
 * (engine, its block dedup) and the sink's `async_insert` as the run started.
 */
export function configurationOf(target: TargetTable, dedupOff: boolean, spec: RawSinkSpec): string {
  const table =
    target === 'single-host-merge-tree'
      ? `MergeTree, 1 host per shard, ${dedupOff ? 'no dedup window' : 'non_replicated_deduplication_window'}`
      : `ReplicatedMergeTree${dedupOff ? ', replicated_deduplication_window = 0' : ''}`;
  return `${table} · async_insert ${spec.dynamic_parameters.async_insert === true ? 'on' : 'off'}`;
}
