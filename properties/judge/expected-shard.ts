import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { type GroundTruth, layoutKey, type RoutingLayout } from '../../harness/oracle/index.ts';
import type { AttemptRecord } from '../checkers/index.ts';
import { specInForceAt, type SpecPeriod } from './spec-periods.ts';
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
 * Where each row may live, judged independently of the sink's own routing code: for every INSERT
 * that put the row there (the server finished it, an unknown-outcome INSERT that landed included,
 * or the sink saw it `ok`), the spec in force when it started and that spec's layout as ClickHouse
 * computed it over the stored row (`truth.routed`), mapped to the cluster shard the named hosts
 * serve. Unsharded forms: the shard of the host. A row re-sent after a spec change may sit on one
 * shard per routing that carried it (at-least-once owes it there; the duplicate is judged
 * elsewhere). A row no INSERT can account for gets no expectation (null): it is `unexpected`,
 * judged elsewhere.
 */
export function expectedShardsOf(
  description: ClusterDescription,
  specs: readonly SpecPeriod[],
  attempts: readonly AttemptRecord[],
  truth: GroundTruth,
): (messageId: string) => readonly string[] | null {
  const finished = new Set(truth.serverInserts.filter((insert) => insert.finished).map((insert) => insert.queryId));
  const insertedAt = new Map<string, number[]>();
  for (const attempt of attempts) {
    if (attempt.outcome !== 'ok' && !finished.has(attempt.queryId)) continue;
    for (const id of attempt.messageIds) insertedAt.set(id, [...(insertedAt.get(id) ?? []), attempt.startedAt]);
  }
  const shardUnder = (messageId: string, at: number): string | null => {
    const spec = specInForceAt(specs, at);
    if (spec === undefined) return null;
    const topology = specTopology(spec);
    if (topology.form !== 'shard_hosts') return clusterShardOf(description, topology.hosts[0], topology.port);
    const name = truth.routed.get(layoutKey(routingLayout(topology)))?.get(messageId);
    if (name === undefined) return `unrouted:${messageId}`;
    return clusterShardOf(description, topology.shards.get(name)?.[0] ?? '', topology.port);
  };
  return (messageId) => {
    const shards = new Set<string>();
    for (const at of insertedAt.get(messageId) ?? []) {
      const shard = shardUnder(messageId, at);
      if (shard !== null) shards.add(shard);
    }
    return shards.size === 0 ? null : [...shards].sort();
  };
}
