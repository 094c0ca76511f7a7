import type { ClickHouseClient } from '@clickhouse/client';
import { harnessClient, type ReplicaDescription } from '../../harness/cluster/index.ts';
import type { NemesisContext } from './fault.ts';

/** A client straight to one replica (past its fault proxy), closed once `work` ended. */
export async function withDirectClient<T>(
  context: NemesisContext,
  replica: ReplicaDescription,
  work: (client: ClickHouseClient) => Promise<T>,
  timeoutMs = 10_000,
): Promise<T> {
  const client = harnessClient(replica.direct_http, {
    timeoutMs,
    credentials: context.cluster.description.credentials,
  });
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** The run's replicated tables on the replica `client` talks to. */
export async function replicatedTables(client: ClickHouseClient, database: string): Promise<string[]> {
  const result = await client.query({
    query: "SELECT name FROM system.tables WHERE database = {database:String} AND engine LIKE 'Replicated%MergeTree'",
    query_params: { database },
    format: 'JSONEachRow',
  });
  return (await result.json<{ name: string }>()).map((row) => row.name);
}
