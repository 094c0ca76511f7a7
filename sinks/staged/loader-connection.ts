import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import type { LoaderConnection, StagedRow } from './staged-partition-loader.ts';

export interface LoaderEndpoint {
  readonly url: string;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly requestTimeoutMs: number;
}

/**
 * The loader's connection over HTTP. Keep-alive is off for the sinks' reason
 * (`session/endpoint-client.ts`): a reset on a pooled socket would look like an unknown outcome
 * when nothing ran. Staging INSERTs go with the server's insert dedup off: a staging load that is
 * written again after its truncate must not be dropped as a repeat of the first (on a replicated
 * staging table the hashes of the first attempt's blocks outlive the truncate).
 */
export function loaderConnection(endpoint: LoaderEndpoint): LoaderConnection & { close(): Promise<void> } {
  const client = createClient({
    url: endpoint.url,
    username: endpoint.username ?? 'default',
    password: endpoint.password ?? '',
    request_timeout: endpoint.requestTimeoutMs,
    keep_alive: { enabled: false },
    application: 'staged-partition-loader',
    log: { level: ClickHouseLogLevel.OFF },
  });
  return {
    async command(query: string) {
      await client.command({ query });
    },
    async insert(table: string, rows: readonly StagedRow[]) {
      await client.insert({
        table,
        values: [...rows],
        format: 'JSONEachRow',
        clickhouse_settings: { insert_deduplicate: 0 },
      });
    },
    async count(query: string) {
      const result = await client.query({ query, format: 'JSONEachRow' });
      const rows = await result.json<Record<string, string | number>>();
      return Number(Object.values(rows[0] ?? {})[0] ?? Number.NaN);
    },
    close: () => client.close(),
  };
}
