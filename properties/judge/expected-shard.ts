import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { type GroundTruth, layoutKey, type RoutingLayout } from '../../harness/oracle/index.ts';
import type { AttemptRecord } from '../checkers/index.ts';
import type { SpecPeriod } from './spec-periods.ts';
import { specTopology, type SpecTopology } from './spec-topology.ts';
import { clusterShardOf } from './topology-key.ts';

type ShardedTopology = Extract<SpecTopology, { form: 'shard_hosts' }>;

/** The routing layout of a sharded spec: its shard names and key columns. */
const routingLayout = (topology: ShardedTopology): RoutingLayout => ({
  shards: [...topology.shards.keys()],
  keyColumns: topology.keyColumns,
});

/** Every distinct sharded layout the run's specs used. */
export function routingLayouts(specs: readonly SpecPeriod[]): RoutingLayout[] {
  const layouts = new Map<string, RoutingLayout>();
  for (const period of specs) {
    const topology = specTopology(period.spec);
    if (topology.form !== 'shard_hosts') continue;
    const layout = routingLayout(topology);
    layouts.set(layoutKey(layout), layout);
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
    const topology = specTopology(period.spec);
    if (topology.form !== 'shard_hosts') return clusterShardOf(description, topology.hosts[0], topology.port);
    const name = truth.routed.get(layoutKey(routingLayout(topology)))?.get(messageId);
    if (name === undefined) return `unrouted:${messageId}`;
    return clusterShardOf(description, topology.shards.get(name)?.[0] ?? '', topology.port);
  };
}
