import { type ClusterDescription, describeProfile, type SettingProfile } from '../../harness/cluster/index.ts';
import type { ClusterEndpoints, RawSinkSpec } from '../../properties/arbitraries/index.ts';
import type { TargetTable } from '../../properties/judge/index.ts';
import { SHORT_DEDUP_WINDOW_S } from '../scenarios/index.ts';

/** The window a single-host run sets when it keeps block dedup (any value > 0 keeps the token's dedup). */
const NON_REPLICATED_WINDOW = 1000;

/** The replica of each shard a single-host target lives on (the first one); undefined for a replicated table. */
export function singleHosts(description: ClusterDescription, target: TargetTable): string[] | undefined {
  if (target !== 'single-host-merge-tree') return undefined;
  return description.shards.flatMap((shard) => shard.replicas.slice(0, 1).map((replica) => replica.name));
}

/** The endpoints a spec may name: every replica, or the first of each shard for a single-host target. */
export function targetEndpoints(endpoints: ClusterEndpoints, target: TargetTable): ClusterEndpoints {
  if (target !== 'single-host-merge-tree') return endpoints;
  return {
    port: endpoints.port,
    shards: new Map([...endpoints.shards].map(([shard, hosts]) => [shard, hosts.slice(0, 1)])),
  };
}

/**
 * Engine and settings of the run's table. `dedupOff` turns ClickHouse's block dedup off: the
 * replicated window at 0 for a token-less class, no `non_replicated_deduplication_window` on a
 * single host, a 1 s window on a short-window table (the last two are the seed's degraded cases
 * for exactly-once).
 */
export function tableEngine(target: TargetTable, dedupOff: boolean): { engine?: string; settings: string[] } {
  if (target === 'single-host-merge-tree')
    return {
      engine: 'MergeTree',
      settings: dedupOff ? [] : [`non_replicated_deduplication_window = ${NON_REPLICATED_WINDOW}`],
    };
  // A chaos table holds a few hundred rows, so one part a SIGKILLed replica wrote but never
  // committed to Keeper can be half of it, and ClickHouse's start-up sanity check (default ratio
  // 0.5) would keep that replica read-only for good. At 1 it detaches such parts, as it does on
  // any table of real size; Keeper's record stays the truth.
  const wrongParts = 'replicated_max_ratio_of_wrong_parts = 1';
  if (target === 'short-dedup-window')
    return {
      settings: [
        wrongParts,
        // The cleanup thread forgets expired tokens within a second instead of half a minute.
        'cleanup_delay_period = 1',
        'max_cleanup_delay_period = 1',
        'cleanup_delay_period_random_add = 0',
        ...(dedupOff
          ? [
              `replicated_deduplication_window_seconds = ${SHORT_DEDUP_WINDOW_S}`,
              `replicated_deduplication_window_seconds_for_async_inserts = ${SHORT_DEDUP_WINDOW_S}`,
            ]
          : []),
      ],
    };
  // A view's dedup is the user's setting (`viewDedupProfile`); the table keeps its window.
  if (target === 'replicated-with-view') return { settings: [wrongParts] };
  // Only for the classes without a token: the window also carries token dedup, which exactly-once rests on.
  return { settings: [wrongParts, ...(dedupOff ? ['replicated_deduplication_window = 0'] : [])] };
}

/**
 * Whether a run may turn the server's block dedup off (or short): token-less classes on every
 * table; every class on a single host or a short-window table, where that is the case under test.
 */
export function dedupMayBeOff(target: TargetTable, usesToken: boolean): boolean {
  return target !== 'replicated' || !usesToken;
}

/** The base name of the run's table (`<name>_rep` on every replica, `<name>_dist` over the shards). */
export const TABLE = 'events';

/** The base name of the table the target's materialized view fills (`<name>_rep` on every replica). */
export const VIEW_TABLE = 'events_view';

/**
 * The configuration a run wrote under, as the report's configuration matrix names it: the table
 * (engine, its block dedup) and the sink's `async_insert` as the run started.
 */
export function configurationOf(
  target: TargetTable,
  dedupOff: boolean,
  spec: RawSinkSpec,
  profile?: { readonly name: SettingProfile; readonly replicas: number },
): string {
  const table =
    target === 'single-host-merge-tree'
      ? `MergeTree, 1 host per shard, ${dedupOff ? 'no dedup window' : 'non_replicated_deduplication_window'}`
      : target === 'short-dedup-window'
        ? `ReplicatedMergeTree, dedup window ${dedupOff ? `${SHORT_DEDUP_WINDOW_S} s < replay_horizon` : '1 h (server default) > replay_horizon'}`
        : target === 'replicated-with-view'
          ? `ReplicatedMergeTree + materialized view, deduplicate_blocks_in_dependent_materialized_views = ${dedupOff ? 0 : 1}`
          : `ReplicatedMergeTree${dedupOff ? ', replicated_deduplication_window = 0' : ''}`;
  // The view's setting is already named with the table.
  const settings =
    profile === undefined || profile.name === 'view_dedup_off'
      ? ''
      : ` · ${describeProfile(profile.name, profile.replicas)}`;
  return `${table}${settings} · async_insert ${spec.dynamic_parameters.async_insert === true ? 'on' : 'off'}`;
}
