import type { ClusterDescription } from '../../harness/cluster/description.ts';
import { DeterministicSource } from '../../harness/flow/source/deterministic-source.ts';
import type { SourceConfig } from '../../harness/flow/source/source-config.ts';
import { parseMessageId } from '../../sinks/domain/message-id.ts';
import { shardName } from '../../sinks/domain/shard-name.ts';
import { RendezvousRouter } from '../../sinks/routing/rendezvous-router.ts';
import { routingKeyFor } from '../../sinks/routing/routing-key.ts';
import type { AttemptRecord } from '../../properties/checkers/observations.ts';
import type { SpecPeriod } from './pipeline-system.ts';
import { clusterShardOf } from './topology-key.ts';

/**
 * Where each row must live, recomputed independently of the sink: rendezvous over the shard
 * names of the spec that was in force when the row's last successful INSERT started (the row's
 * values re-derived from the deterministic source), mapped to the cluster shard those hosts
 * serve. Rows never inserted successfully get no expectation (null).
 */
export function expectedShardOf(
  description: ClusterDescription,
  source: SourceConfig,
  specs: readonly SpecPeriod[],
  attempts: readonly AttemptRecord[],
): (messageId: string) => string | null {
  const insertedAt = new Map<string, number>();
  for (const attempt of attempts) {
    if (attempt.outcome === 'ok') for (const id of attempt.messageIds) insertedAt.set(id, attempt.startedAt);
  }
  const sources = new Map<number, DeterministicSource>();
  return (messageId) => {
    const at = insertedAt.get(messageId);
    if (at === undefined) return null;
    const period = [...specs].reverse().find((candidate) => candidate.from <= at) ?? specs[0];
    if (period === undefined) return null;
    const parameters = period.spec.parameters;
    const shardHosts = parameters.shard_hosts as Record<string, string[]> | undefined;
    if (shardHosts === undefined) return clusterShardOf(description, (parameters.host as string | undefined) ?? (parameters.hosts as string[] | undefined)?.[0] ?? '');
    const { partition, seq } = parseMessageId(messageId);
    const partitionSource = sources.get(partition) ?? new DeterministicSource(source, partition);
    sources.set(partition, partitionSource);
    const row = partitionSource.message(seq).row;
    const router = new RendezvousRouter(Object.keys(shardHosts).map(shardName));
    const keys = (parameters.sharding_key_columns as string[] | undefined) ?? [];
    const routed = router.route(routingKeyFor(partitionSource.message(seq).id, row, keys));
    return clusterShardOf(description, shardHosts[routed]?.[0] ?? '');
  };
}
