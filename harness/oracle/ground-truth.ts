import { randomUUID } from 'node:crypto';
import { ClickHouseError, type ClickHouseClient } from '@clickhouse/client';
import { type ClusterDescription, queryRows } from '../cluster/index.ts';
import { HarnessError } from '../base/index.ts';
import { type KeyColumnType, layoutKey, rendezvousSql, type RoutingLayout } from './rendezvous-sql.ts';
import { countsById, readCountsOf, withReadReplicas, type ReplicaTruth } from './replica-counts.ts';
import { rowForm } from './row-form.ts';
import { storedColumnSql } from '../flow/index.ts';
import { chunksOfParameterSize } from './parameter-chunks.ts';
import type { ServerInsert } from '../flow/history/index.ts';

export type { AsyncInsertSettings, ServerInsert } from '../flow/history/index.ts';

const ASYNC_SETTING_NAMES = ['async_insert', 'wait_for_async_insert', 'async_insert_deduplicate'] as const;

export interface GroundTruth {
  readonly replicas: readonly ReplicaTruth[];
  readonly viaDistributed: ReadonlyMap<string, number>;
  /**
   * Every INSERT into the run's database the replicas logged (query_log, flushed every 500 ms; a
   * node restarted by a nemesis starts with an empty log, so this can miss what it saw before).
   */
  readonly serverInserts: readonly ServerInsert[];
  /**
   * Layout key (`layoutKey`) -> message id -> the shard name that layout routes the row to,
   * computed by ClickHouse over the stored row (`rendezvous-sql.ts`), for every row on any replica.
   */
  readonly routed: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /**
   * Message id -> every distinct form (`rowForm`) its rows take on any replica: a row that landed
   * with other values than the source produced shows here as a second or foreign form.
   */
  readonly forms: ReadonlyMap<string, ReadonlySet<string>>;
  /** What each replica's materialized-view table holds, when the target has a view behind it. */
  readonly view?: readonly ReplicaTruth[];
  /**
   * Replicas whose query_log showed the oracle's own marker query, run after every INSERT ended
   * and found after SYSTEM FLUSH LOGS: the log is written for the harness's user and flushed past
   * the run. Absent in records written before it was read (no replica is vouched for).
   */
  readonly logMarkerFound?: readonly string[];
  readonly readAt: number;
}

/**
 * A regular expression for a query text that names `database` as a table's database: how an
 * INSERT refused before it started (`ExceptionBeforeStart`, no `databases` logged) is found.
 */
export const namesDatabase = (database: string): string => `(^|[^A-Za-z0-9_])\`?${database}\`?[.]`;

export interface TruthTarget {
  readonly database: string;
  /** Base table name: the oracle reads `<name>_rep` on every replica and `<name>_dist` once. */
  readonly table: string;
  /** The sharded routing layouts the run used: where each stored row must live under each. */
  readonly layouts?: readonly RoutingLayout[];
  /**
   * A single-host plain MergeTree target: only these replicas (one per shard) hold the table the
   * sink writes; the others are not read, nothing is synced, and the union a user reads is the
   * sum over these hosts (no Distributed table covers exactly them).
   */
  readonly singleHosts?: readonly string[];
  /** Base name of the table a materialized view fills from the target (`<view>_rep` on every replica). */
  readonly view?: string;
  /**
   * The stream's columns with their types: a stored row's form is read from these alone, each as
   * `storedColumnSql` reads it (undefined: every column as the server prints it).
   */
  readonly columns?: readonly StoredColumn[];
}

export interface StoredColumn {
  readonly name: string;
  readonly clickhouse: string;
}

/** Where each layout routes every row of one replica, computed by the server. */
async function routedRows(
  client: ClickHouseClient,
  table: string,
  layouts: readonly RoutingLayout[],
  typeOf: KeyColumnType,
): Promise<{ id: string; names: string[] }[]> {
  if (layouts.length === 0) return [];
  const columns = layouts.map((layout, i) => `${rendezvousSql(layout, typeOf)} AS l${i}`).join(', ');
  const rows = await queryRows<Record<string, string>>(client, `SELECT DISTINCT id, ${columns} FROM ${table}`);
  return rows.map((row) => ({ id: row.id ?? '', names: layouts.map((_, i) => row[`l${i}`] ?? '') }));
}

async function storedForms(
  client: ClickHouseClient,
  table: string,
  columns: readonly StoredColumn[] | undefined,
  forms: Map<string, Set<string>>,
): Promise<void> {
  const list =
    columns === undefined ? '*' : columns.map(({ name, clickhouse }) => storedColumnSql(name, clickhouse)).join(', ');
  for (const row of await queryRows<Record<string, unknown>>(client, `SELECT DISTINCT ${list} FROM ${table}`, {
    output_format_json_quote_64bit_integers: 1,
  })) {
    const id = String(row.id);
    const known = forms.get(id) ?? new Set<string>();
    known.add(rowForm(row));
    forms.set(id, known);
  }
}

function summed(truths: readonly ReplicaTruth[]): Map<string, number> {
  const total = new Map<string, number>();
  for (const truth of truths) for (const [id, n] of truth.counts) total.set(id, (total.get(id) ?? 0) + n);
  return total;
}

/** A query_log that does not exist yet: a node restarted by a nemesis creates it on its first flush after it logged something. */
const noLogYet = (error: unknown) => error instanceof ClickHouseError && error.type === 'UNKNOWN_TABLE';

/**
 * The replica's query_log of INSERTs into `database` (ended ones: finished, failed, or refused
 * before they started). One refused before its start names no database (an unknown table, 26.7
 * measured), so those are found by the database in their text.
 */
export async function serverInserts(
  client: ClickHouseClient,
  replica: string,
  database: string,
): Promise<ServerInsert[]> {
  try {
    const result = await client.query({
      query: `SELECT query_id, type = 'QueryFinish' AS finished, ProfileEvents['DuplicatedInsertedBlocks'] > 0 AS deduplicated, Settings['insert_deduplication_token'] AS token, ProfileEvents['QuorumParts'] > 0 AS quorum_waited, exception_code,
         mapFilter((name, value) -> has({asyncNames:Array(String)}, name), Settings) AS async_settings
       FROM system.query_log
       WHERE type IN ('QueryFinish', 'ExceptionWhileProcessing', 'ExceptionBeforeStart') AND query_kind = 'Insert'
         AND (has(databases, {database:String}) OR (type = 'ExceptionBeforeStart' AND match(query, {named:String})))`,
      query_params: { database, named: namesDatabase(database), asyncNames: [...ASYNC_SETTING_NAMES] },
      format: 'JSONEachRow',
    });
    const rows = await result.json<{
      query_id: string;
      finished: number;
      deduplicated: number;
      token: string;
      quorum_waited: number;
      exception_code: number;
      async_settings: Record<string, string>;
    }>();
    const defaults = await settingDefaults(client, ASYNC_SETTING_NAMES);
    const effective = (changed: Record<string, string>, name: (typeof ASYNC_SETTING_NAMES)[number]) =>
      (changed[name] ?? defaults.get(name)) === '1';
    const waits = await keeperWaits(
      client,
      rows.map((row) => row.query_id),
    );
    return rows.map((row) => ({
      queryId: row.query_id,
      replica,
      finished: Boolean(Number(row.finished)),
      deduplicated: Boolean(Number(row.deduplicated)),
      token: row.token,
      quorumWaited: Boolean(Number(row.quorum_waited)),
      exceptionCode: Number(row.exception_code),
      asyncSettings: {
        asyncInsert: effective(row.async_settings, 'async_insert'),
        waitForAsyncInsert: effective(row.async_settings, 'wait_for_async_insert'),
        asyncInsertDeduplicate: effective(row.async_settings, 'async_insert_deduplicate'),
      },
      ...(waits === undefined
        ? {}
        : {
            keeperWaitMs: Math.max(0, ...Object.values(waits.get(row.query_id) ?? {})),
            keeperWaitsByLink: waits.get(row.query_id) ?? {},
          }),
    }));
  } catch (error) {
    if (noLogYet(error)) return [];
    throw error;
  }
}

/** The server's own default of each named setting (`system.settings.default`). */
async function settingDefaults(client: ClickHouseClient, names: readonly string[]): Promise<Map<string, string>> {
  const result = await client.query({
    query: 'SELECT name, default FROM system.settings WHERE name IN {names:Array(String)}',
    query_params: { names: [...names] },
    format: 'JSONEachRow',
  });
  const rows = await result.json<{ name: string; default: string }>();
  return new Map(rows.map((row) => [row.name, row.default]));
}

/**
 * Per query id and Keeper endpoint (`host:port`), the longest answer to one of its Keeper requests
 * (ms); undefined when the replica keeps no zookeeper_log.
 */
async function keeperWaits(
  client: ClickHouseClient,
  queryIds: readonly string[],
): Promise<Map<string, Record<string, number>> | undefined> {
  const waits = new Map<string, Record<string, number>>();
  try {
    for (const ids of chunksOfParameterSize(queryIds)) {
      const result = await client.query({
        query: `SELECT query_id, replaceRegexpOne(toString(address), '^::ffff:', '') AS host, port, max(duration_microseconds) AS wait_us
                FROM system.zookeeper_log
                WHERE type = 'Response' AND query_id IN {ids:Array(String)} GROUP BY query_id, host, port`,
        query_params: { ids },
        format: 'JSONEachRow',
      });
      const rows = await result.json<{
        query_id: string;
        host: string;
        port: number | string;
        wait_us: number | string;
      }>();
      for (const row of rows)
        waits.set(row.query_id, {
          ...waits.get(row.query_id),
          [`${row.host}:${row.port}`]: Number(row.wait_us) / 1000,
        });
    }
    return waits;
  } catch (error) {
    if (noLogYet(error)) return undefined;
    throw error;
  }
}

/** Runs the oracle's marker query on a replica: found in its query_log after the flush, it shows the log complete up to now. */
async function runMarker(client: ClickHouseClient, marker: string): Promise<void> {
  const result = await client.query({ query: 'SELECT 1', query_id: marker, format: 'JSONEachRow' });
  await result.json();
}

async function markerLogged(client: ClickHouseClient, marker: string): Promise<boolean> {
  try {
    const result = await client.query({
      query: "SELECT count() AS c FROM system.query_log WHERE query_id = {marker:String} AND type = 'QueryFinish'",
      query_params: { marker },
      format: 'JSONEachRow',
    });
    const rows = await result.json<{ c: string }>();
    return Number(rows[0]?.c ?? 0) > 0;
  } catch (error) {
    if (noLogYet(error)) return false;
    throw error;
  }
}

/**
 * What ClickHouse holds once healed: every replica of every shard read DIRECTLY (bypassing the
 * fault proxies) once no INSERT runs anywhere and after SYSTEM SYNC REPLICA, the `_dist` union as a
 * user reads it, and every replica's own log of the INSERTs it ran. A replica that cannot sync is an infrastructure error.
 */
export async function collectGroundTruth(
  description: ClusterDescription,
  target: TruthTarget,
  syncTimeoutS = 120,
): Promise<GroundTruth> {
  const local = `${target.database}.${target.table}_rep`;
  const counted = {
    localTable: local,
    ...(target.singleHosts === undefined ? {} : { replicas: target.singleHosts, replicated: false }),
  };
  return withReadReplicas(description, counted, syncTimeoutS, async (replicas) => {
    const clients = replicas.map(({ client }) => client);
    const [first] = clients;
    if (first === undefined) throw new HarnessError('ORACLE_NO_REPLICA', 'the cluster description lists no replica');
    const truths = await readCountsOf(replicas, counted, syncTimeoutS);
    const marker = `chaos_oracle_log_marker_${randomUUID()}`;
    await Promise.all(replicas.map(({ client }) => runMarker(client, marker)));
    await Promise.all(
      replicas.map(async ({ replica, client }) => {
        try {
          await client.command({ query: 'SYSTEM FLUSH LOGS' });
        } catch (error) {
          throw new HarnessError(
            'ORACLE_SYNC_FAILED',
            `replica ${replica} could not flush its logs: ${(error as Error).message}`,
            { cause: error },
          );
        }
      }),
    );
    const viaDistributed =
      target.singleHosts === undefined
        ? await countsById(first, `${target.database}.${target.table}_dist`)
        : summed(truths);
    const logged = await Promise.all(
      replicas.map(({ replica, client }) => serverInserts(client, replica, target.database)),
    );
    const marked = await Promise.all(replicas.map(({ client }) => markerLogged(client, marker)));
    const layouts = target.layouts ?? [];
    const routed = new Map(layouts.map((layout) => [layoutKey(layout), new Map<string, string>()]));
    const typeOf: KeyColumnType = (column) => target.columns?.find(({ name }) => name === column)?.clickhouse;
    for (const rows of await Promise.all(clients.map((client) => routedRows(client, local, layouts, typeOf)))) {
      for (const { id, names } of rows)
        names.forEach((name, i) => routed.get(layoutKey(layouts[i] as RoutingLayout))?.set(id, name));
    }
    const forms = new Map<string, Set<string>>();
    for (const client of clients) await storedForms(client, local, target.columns, forms);
    const view =
      target.view === undefined
        ? {}
        : { view: await readCountsOf(replicas, { localTable: `${target.database}.${target.view}_rep` }, syncTimeoutS) };
    return {
      replicas: truths,
      viaDistributed,
      serverInserts: logged.flat(),
      logMarkerFound: replicas.filter((_, i) => marked[i] === true).map(({ replica }) => replica),
      routed,
      forms,
      ...view,
      readAt: Date.now(),
    };
  });
}
