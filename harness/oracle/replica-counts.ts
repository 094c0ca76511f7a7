import type { ClickHouseClient } from '@clickhouse/client';
import { type ClusterDescription, queryRows } from '../cluster/index.ts';
import { ClusterAdmin } from '../clickhouse/index.ts';
import { HarnessError } from '../base/index.ts';

/** Row counts per message id as one replica holds them, read directly after SYSTEM SYNC REPLICA. */
export interface ReplicaTruth {
  readonly shard: string;
  readonly replica: string;
  readonly counts: ReadonlyMap<string, number>;
}

export interface CountTarget {
  /** The table each replica holds, database-qualified: `eo.sharded_rep`. */
  readonly localTable: string;
  /** Only these replicas are waited for, synced and read; every replica of the cluster when absent. */
  readonly replicas?: readonly string[];
  /** False for a plain MergeTree table: it has no replication queue to sync. Default true. */
  readonly replicated?: boolean;
}

/** One replica to read, with a client that reaches it directly (not through its fault proxy). */
export interface ReadReplica {
  readonly shard: string;
  readonly replica: string;
  readonly client: ClickHouseClient;
}

/**
 * An INSERT whose client gave up (a timeout under a Keeper fault) keeps running on the server
 * and may commit its part long after the heal; until every such query into the run's database
 * ended, the replicas are not quiescent and SYNC REPLICA cannot see what is still coming.
 * INSERTs into other databases (a shared cluster's own traffic) are none of the run's business.
 */
async function waitForInsertsToEnd(
  replicas: readonly ReadReplica[],
  database: string,
  timeoutS: number,
): Promise<void> {
  const deadline = Date.now() + timeoutS * 1000;
  // The database as a whole word of the statement (`db`.`t`, db.t): not a prefix of another name.
  const named = `(^|[^A-Za-z0-9_])${database.replace(/[^A-Za-z0-9_]/g, '\\$&')}([^A-Za-z0-9_]|$)`;
  for (const { replica, client } of replicas) {
    for (;;) {
      const result = await client.query({
        query:
          "SELECT count() AS c FROM system.processes WHERE query_kind = 'Insert' AND (current_database = {database:String} OR match(query, {named:String}))",
        query_params: { database, named },
        format: 'JSONEachRow',
      });
      const rows = await result.json<{ c: string | number }>();
      if (Number(rows[0]?.c ?? 0) === 0) break;
      if (Date.now() > deadline) {
        throw new HarnessError(
          'ORACLE_INSERTS_RUNNING',
          `replica ${replica} still runs INSERT queries into ${database} ${timeoutS} s after healing; the ground truth cannot be read`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function databaseOf(table: string): string {
  const dot = table.indexOf('.');
  if (dot <= 0)
    throw new HarnessError('ORACLE_TABLE', `the table to count must be database-qualified (db.table), got '${table}'`);
  return table.slice(0, dot);
}

/** Rows per message id in `table` as `client`'s server holds it. */
export async function countsById(client: ClickHouseClient, table: string): Promise<Map<string, number>> {
  const rows = await queryRows<{ id: string; c: string }>(client, `SELECT id, count() AS c FROM ${table} GROUP BY id`);
  return new Map(rows.map((row) => [row.id, Number(row.c)]));
}

/**
 * What each replica holds once quiescent: no INSERT runs on any of them, each has fetched
 * everything its replication queue knows of (SYSTEM SYNC REPLICA), then the rows per message
 * id. A replica that cannot sync is an infrastructure error, never a verdict.
 */
export async function readCountsOf(
  replicas: readonly ReadReplica[],
  target: CountTarget,
  syncTimeoutS: number,
): Promise<ReplicaTruth[]> {
  await waitForInsertsToEnd(replicas, databaseOf(target.localTable), syncTimeoutS);
  if (target.replicated !== false)
    await Promise.all(
      replicas.map(async ({ replica, client }) => {
        try {
          await client.command({
            query: `SYSTEM SYNC REPLICA ${target.localTable}`,
            clickhouse_settings: { receive_timeout: syncTimeoutS },
          });
        } catch (error) {
          throw new HarnessError(
            'ORACLE_SYNC_FAILED',
            `replica ${replica} could not sync ${target.localTable} within ${syncTimeoutS} s: ${(error as Error).message}`,
            { cause: error },
          );
        }
      }),
    );
  return Promise.all(
    replicas.map(async ({ shard, replica, client }) => ({
      shard,
      replica,
      counts: await countsById(client, target.localTable),
    })),
  );
}

/**
 * `work` over direct clients to the replicas `target` names (all when it names none), in the
 * description's order, closed afterwards.
 */
export function withReadReplicas<T>(
  description: ClusterDescription,
  target: CountTarget,
  syncTimeoutS: number,
  work: (replicas: readonly ReadReplica[]) => Promise<T>,
): Promise<T> {
  return new ClusterAdmin(description).withReplicas(
    (replicas) => work(replicas.map(({ shard, replica, client }) => ({ shard, replica: replica.name, client }))),
    { only: target.replicas, timeoutMs: (syncTimeoutS + 10) * 1000 },
  );
}

/**
 * The one reader of what the replicas hold, for the chaos job's oracle and the integration
 * tests alike: `readCountsOf` over fresh direct clients, closed afterwards.
 */
export function readReplicaCounts(
  description: ClusterDescription,
  target: CountTarget,
  syncTimeoutS = 120,
): Promise<ReplicaTruth[]> {
  return withReadReplicas(description, target, syncTimeoutS, (replicas) => {
    if (replicas.length === 0)
      throw new HarnessError(
        'ORACLE_NO_REPLICA',
        `the cluster description lists none of the replicas to read (${target.replicas?.join(', ') ?? 'all'})`,
      );
    return readCountsOf(replicas, target, syncTimeoutS);
  });
}
