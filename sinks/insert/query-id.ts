import { randomUUID } from 'node:crypto';

export interface QueryIdParts {
  readonly sink: string;
  readonly partition: number;
  readonly batch: number;
  readonly shard: string | null;
  readonly attempt: number;
}

/**
 * The `query_id` of one INSERT attempt: readable in `system.query_log` (sink, partition, batch,
 * shard, attempt) and unique through a random UUID, since a restarted instance replays the same
 * batch under the same other parts.
 */
export function insertQueryId(parts: QueryIdParts): string {
  const sink = parts.sink.replace(/[^A-Za-z0-9_-]/g, '_');
  return `${sink}.p${parts.partition}.b${parts.batch}.${parts.shard ?? 'u'}.a${parts.attempt}.${randomUUID()}`;
}
