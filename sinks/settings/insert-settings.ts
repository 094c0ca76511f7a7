import type { ClickHouseSettings } from '@clickhouse/client';
import { SinkError } from '../errors.ts';
import type { DedupToken } from '../domain/batch-token.ts';
import type { SinkClassDescriptor } from '../sink-classes.ts';

/**
 * The ClickHouse settings of one INSERT (sections 1 and 6):
 * - exactly-once classes always send `insert_deduplication_token` (the batch token, with
 *   `:<shard>` for the sharded class);
 * - `async_insert = true`: every class sends `async_insert=1` and `wait_for_async_insert=1`
 *   (so an insert error is known before the outbox moves on); the exactly-once classes add
 *   `async_insert_deduplicate=1`, without which async inserts are not deduplicated;
 * - at-least-once and at-most-once send neither a token nor `async_insert_deduplicate`;
 * - `async_insert = false`: every class sends `async_insert=0`. The seed is silent here because
 *   the server's default was 0 when it was written; on 26.x it is 1 (measured on 26.7), so an
 *   INSERT that sent nothing would run asynchronously — and for the exactly-once classes without
 *   `async_insert_deduplicate`, unprotected by its token.
 * Nothing else is set, so the other defaults of the server and the user profile stay in force.
 */
export function insertSettingsFor(
  sinkClass: Pick<SinkClassDescriptor, 'name' | 'usesDedupToken'>,
  dynamic: { readonly async_insert: boolean },
  token: DedupToken | undefined,
): ClickHouseSettings {
  if (sinkClass.usesDedupToken && token === undefined) {
    throw new SinkError('SINK_INTERNAL', `${sinkClass.name} inserts carry a dedup token, and none was given`);
  }
  if (!sinkClass.usesDedupToken && token !== undefined) {
    throw new SinkError('SINK_INTERNAL', `${sinkClass.name} inserts carry no dedup token, and one was given`);
  }
  const settings: ClickHouseSettings = {};
  if (token !== undefined) settings.insert_deduplication_token = token;
  settings.async_insert = dynamic.async_insert ? 1 : 0;
  if (dynamic.async_insert) {
    settings.wait_for_async_insert = 1;
    if (sinkClass.usesDedupToken) settings.async_insert_deduplicate = 1;
  }
  return settings;
}
