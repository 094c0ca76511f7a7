import type { ClickHouseClient } from '@clickhouse/client';
import { CLUSTER_NAME } from '../cluster/index.ts';

export interface TableDefinition {
  readonly database: string;
  /** Base name: the local table is `<name>_rep`, the union over shards `<name>_dist` (seed 001). */
  readonly name: string;
  /** Column list as in DDL: `id String, value UInt64`. */
  readonly columns: string;
  readonly orderBy: string;
  /** Default `ReplicatedMergeTree`; any other engine keeps its own arguments. */
  readonly engine?: string;
  readonly settings?: string;
  /** The remote_servers cluster the Distributed union spans: the cluster description's `cluster`; default the harness's own. */
  readonly cluster?: string;
}

export function replicatedEngine(engine = 'ReplicatedMergeTree'): string {
  return `${engine}('/clickhouse/tables/{shard}/{database}/{table}', '{replica}')`;
}

export function localTableDdl(table: TableDefinition): string {
  const settings = table.settings ? ` SETTINGS ${table.settings}` : '';
  return `CREATE TABLE IF NOT EXISTS ${table.database}.${table.name}_rep (${table.columns}) ENGINE = ${table.engine ?? replicatedEngine()} ORDER BY ${table.orderBy}${settings}`;
}

export function distributedTableDdl(table: TableDefinition): string {
  return `CREATE TABLE IF NOT EXISTS ${table.database}.${table.name}_dist AS ${table.database}.${table.name}_rep ENGINE = Distributed('${table.cluster ?? CLUSTER_NAME}', '${table.database}', '${table.name}_rep')`;
}

/**
 * A materialized view on every node that copies each block inserted into `<source>_rep` into
 * `<target>_rep` (seed 001's `_mv`): local to the node, so the copy lives on the source row's shard.
 */
export function materializedViewDdl(database: string, source: string, target: string): string {
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${database}.${source}_mv TO ${database}.${target}_rep AS SELECT * FROM ${database}.${source}_rep`;
}

/**
 * A database of the caller's own: a plain CREATE, so a name already taken fails loudly
 * (DATABASE_ALREADY_EXISTS, 82) instead of being adopted, and later dropped, as one's own.
 */
export function createDatabaseDdl(database: string): string {
  return `CREATE DATABASE ${database}`;
}

/** Creates the local table and its Distributed union on every node, in a database that exists. */
export async function createTables(clients: readonly ClickHouseClient[], table: TableDefinition): Promise<void> {
  for (const statement of [localTableDdl(table), distributedTableDdl(table)]) {
    await Promise.all(clients.map((client) => client.command({ query: statement })));
  }
}

/**
 * Creates database (when missing), local table and Distributed union on every node: for a test's
 * fixtures on a cluster the test started itself. The chaos job creates its run databases with
 * `createDatabaseDdl` instead, and drops only those.
 */
export async function createShardedTable(clients: readonly ClickHouseClient[], table: TableDefinition): Promise<void> {
  await Promise.all(
    clients.map((client) => client.command({ query: `CREATE DATABASE IF NOT EXISTS ${table.database}` })),
  );
  await createTables(clients, table);
}
