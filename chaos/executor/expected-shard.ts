import type { ClusterDescription } from '../../harness/cluster/description.ts';
import type { GroundTruth } from '../../harness/oracle/ground-truth.ts';
import { layoutKey, type RoutingLayout } from '../../harness/oracle/rendezvous-sql.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/arb-sink-spec.ts';
import type { AttemptRecord } from '../../properties/checkers/observations.ts';
import type { SpecPeriod } from './pipeline-system.ts';
import { clusterShardOf } from './topology-key.ts';

const shardHostsOf = (spec: RawSinkSpec) => spec.parameters.shard_hosts as Record<string, string[]> | undefined;

/** The sharded routing layout of a spec (shard names, key columns); none for `host` / `hosts`. */
function routingLayout(spec: RawSinkSpec): RoutingLayout | undefined {
  const shardHosts = shardHostsOf(spec);
  if (shardHosts === undefined) return undefined;
  return {
    shards: Object.keys(shardHosts),
    keyColumns: (spec.parameters.sharding_key_columns as string[] | undefined) ?? [],
  };
}

/** Every distinct sharded layout the run's specs used. */
export function routingLayouts(specs: readonly SpecPeriod[]): RoutingLayout[] {
  const layouts = new Map<string, RoutingLayout>();
  for (const period of specs) {
    const layout = routingLayout(period.spec);
    if (layout !== undefined) layouts.set(layoutKey(layout), layout);
  }
  return [...layouts.values()];
}

/**
 * Where each row must live, judged independently of the sink's own routing code: the spec in
 * force when the INSERT that put the row there started — the latest one the server finished
 * (an unknown-outcome INSERT that landed included), else the latest `ok` one — and that spec's
 * layout as ClickHouse computed it over the stored row (`truth.routed`), mapped to the cluster
 * shard the named hosts serve. Unsharded forms: the shard of the host. A row no INSERT can
 * account for gets no expectation (null): it is `unexpected`, judged elsewhere.
 */
export function expectedShardOf(
  description: ClusterDescription,
  specs: readonly SpecPeriod[],
  attempts: readonly AttemptRecord[],
  truth: GroundTruth,
): (messageId: string) => string | null {
  const finished = new Set(truth.serverInserts.filter((insert) => insert.finished).map((insert) => insert.queryId));
  const insertedAt = new Map<string, number>();
  const byStart = [...attempts].sort((a, b) => a.startedAt - b.startedAt);
  for (const attempt of byStart)
    if (attempt.outcome === 'ok') for (const id of attempt.messageIds) insertedAt.set(id, attempt.startedAt);
  for (const attempt of byStart)
    if (finished.has(attempt.queryId)) for (const id of attempt.messageIds) insertedAt.set(id, attempt.startedAt);
  return (messageId) => {
    const at = insertedAt.get(messageId);
    if (at === undefined) return null;
    const period = [...specs].reverse().find((candidate) => candidate.from <= at) ?? specs[0];
    if (period === undefined) return null;
    const shardHosts = shardHostsOf(period.spec);
    const layout = routingLayout(period.spec);
    if (shardHosts === undefined || layout === undefined) {
      const parameters = period.spec.parameters;
      return clusterShardOf(
        description,
        (parameters.host as string | undefined) ?? (parameters.hosts as string[] | undefined)?.[0] ?? '',
      );
    }
    const name = truth.routed.get(layoutKey(layout))?.get(messageId);
    return name === undefined ? `unrouted:${messageId}` : clusterShardOf(description, shardHosts[name]?.[0] ?? '');
  };
}
