import type { ClickHouseClient } from '@clickhouse/client';
import type { TableColumn } from '../types/schema-check.ts';

export interface ReplicaIdentity {
  readonly zookeeper_name: string;
  readonly zookeeper_path: string;
  readonly replica_name: string;
}

/** What one endpoint says about the target table at session start. */
export interface EndpointMetadata {
  /** `host:port` as the spec names it. */
  readonly endpoint: string;
  /** Undefined when the table does not exist there. */
  readonly table: { readonly engine: string; readonly engine_full: string } | undefined;
  /** In position order. */
  readonly columns: readonly TableColumn[];
  /** The `system.replicas` row, for replicated tables. */
  readonly replica: ReplicaIdentity | undefined;
  /** The server's MergeTree defaults (`system.merge_tree_settings`) for the dedup settings. */
  readonly serverSettings: Readonly<Record<string, string>>;
}

export const DEDUP_SETTINGS = [
  'replicated_deduplication_window_seconds',
  'replicated_deduplication_window_seconds_for_async_inserts',
  'non_replicated_deduplication_window',
] as const;
export type DedupSettingName = (typeof DEDUP_SETTINGS)[number];

const WHERE_TABLE = 'database = {database:String} AND table = {table:String}';

/** Reads the four system tables the checks need, over one endpoint's client. */
export async function readEndpointMetadata(
  client: ClickHouseClient,
  endpoint: string,
  database: string,
  table: string,
): Promise<EndpointMetadata> {
  const params = { database, table };
  const rows = async <T>(query: string): Promise<T[]> =>
    (await client.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>();
  const [tables, columns, replicas, settings] = await Promise.all([
    rows<{ engine: string; engine_full: string }>(
      'SELECT engine, engine_full FROM system.tables WHERE database = {database:String} AND name = {table:String}',
    ),
    rows<TableColumn>(
      `SELECT name, type, default_kind, default_expression FROM system.columns WHERE ${WHERE_TABLE} ORDER BY position`,
    ),
    rows<ReplicaIdentity>(
      `SELECT zookeeper_name, zookeeper_path, replica_name FROM system.replicas WHERE ${WHERE_TABLE}`,
    ),
    serverDedupSettings(client),
  ]);
  return { endpoint, table: tables[0], columns, replica: replicas[0], serverSettings: settings };
}

/** Only the dedup settings: enough for the window checks and cheap to re-read on reconfiguration. */
export async function serverDedupSettings(client: ClickHouseClient): Promise<Record<string, string>> {
  const result = await client.query({
    query: 'SELECT name, value FROM system.merge_tree_settings WHERE name IN {names:Array(String)}',
    query_params: { names: [...DEDUP_SETTINGS] },
    format: 'JSONEachRow',
  });
  const rows = await result.json<{ name: string; value: string }>();
  return Object.fromEntries(rows.map((row) => [row.name, row.value]));
}
