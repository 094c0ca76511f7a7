import { setTimeout as delay } from 'node:timers/promises';
import { describeError } from '../../harness/base/index.ts';
import {
  type ClusterDescription,
  harnessClient,
  queryRows,
  queryValue,
  type ReplicaDescription,
} from '../../harness/cluster/index.ts';
import type { LoadCount, ReplicaFinal } from '../../properties/checkers/index.ts';
import { type LoaderStep, stagingTable } from '../../sinks/index.ts';
import { readStatement } from './staged-readers.ts';
import { payloadOf } from './staged-source.ts';

// What a staged run reads from the cluster, directly (around the proxies): the effect of a cut
// statement, the replicas' sync, the final state.

/**
 * A table that met no Keeper when its server started tries again every `initialization_retry_period`:
 * 1 s on the clusters the harness starts (measured on 26.7: synced 0.5-1.1 s after the heal), 60 s
 * by default (57-60 s measured, once 120 s): two of the default's periods are the bound.
 */
const SYNC_TIMEOUT_S = 120;
const SYNC_RETRY_MS = 500;

export const clientOf = (description: ClusterDescription, replica: ReplicaDescription) =>
  harnessClient(replica.direct_http, { timeoutMs: 30_000, credentials: description.credentials });

/** Whether the aimed statement had taken effect, read on the writer around its proxy: the staging rows, or the load in production. */
export async function tookEffect(
  description: ClusterDescription,
  writer: ReplicaDescription,
  database: string,
  step: LoaderStep,
): Promise<boolean | undefined> {
  const client = clientOf(description, writer);
  try {
    const table = step.kind === 'publish' ? step.table : stagingTable(step.table);
    const rows = await queryValue<string>(client, `SELECT count() FROM ${database}.${table} WHERE load = ${step.load}`);
    return Number(rows) > 0;
  } catch {
    return undefined;
  } finally {
    await client.close();
  }
}

/**
 * Every node caught up with the shard's log, so the final state is the replicas' agreement or
 * their divergence. A replica whose Keeper session is still coming back refuses the sync ("Cannot
 * get ZooKeeper"): it is asked again until `SYNC_TIMEOUT_S` from the first ask; one that never
 * syncs is named in the notes, and the final read judges what it holds (`diverged`), never an
 * infra-error.
 */
export async function syncReplicas(
  description: ClusterDescription,
  nodes: readonly ReplicaDescription[],
  database: string,
  tables: readonly string[],
  replicated: boolean,
  notes: string[],
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!replicated) return;
  const started = Date.now();
  const deadline = started + SYNC_TIMEOUT_S * 1000;
  for (const replica of nodes) {
    const client = clientOf(description, replica);
    let refused = 0;
    try {
      for (const table of tables)
        for (;;) {
          try {
            await client.command({
              query: `SYSTEM SYNC REPLICA ${database}.${table}`,
              clickhouse_settings: { receive_timeout: SYNC_TIMEOUT_S },
            });
            break;
          } catch (error) {
            if (Date.now() >= deadline) {
              notes.push(`${replica.name} did not sync ${table} within ${SYNC_TIMEOUT_S} s: ${describeError(error)}`);
              break;
            }
            refused += 1;
            await delay(SYNC_RETRY_MS, undefined, { signal });
          }
        }
      if (refused > 0)
        notes.push(
          `${replica.name} refused to sync ${refused} time(s), synced ${((Date.now() - started) / 1000).toFixed(1)} s after the heal`,
        );
    } finally {
      await client.close();
    }
  }
}

/** One node's production tables read directly: counts per load and table, and every row compared with its source. */
export async function finalState(
  description: ClusterDescription,
  replica: ReplicaDescription,
  database: string,
  tables: readonly string[],
  compareRows: boolean,
): Promise<ReplicaFinal> {
  const client = clientOf(description, replica);
  try {
    const counted = await queryRows<{ table: string; load: number; rows: string; distinct: string }>(
      client,
      readStatement(database, tables),
    );
    const counts: LoadCount[] = counted.map((row) => ({
      table: row.table,
      load: Number(row.load),
      rows: Number(row.rows),
      distinct: Number(row.distinct),
    }));
    const wrongRows: string[] = [];
    if (compareRows)
      for (const table of tables)
        for (const row of await queryRows<{ load: number; id: string; payload: string }>(
          client,
          `SELECT load, id, payload FROM ${database}.${table}`,
        ))
          if (row.payload !== payloadOf(table, Number(row.load), Number(row.id)))
            wrongRows.push(`${table}, load ${row.load}, id ${row.id}: payload ${JSON.stringify(row.payload)}`);
    return { replica: replica.name, counts, wrongRows };
  } finally {
    await client.close();
  }
}
