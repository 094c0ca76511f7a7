import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import type { ClusterCredentials } from './description.ts';
import { HarnessError } from '../base/index.ts';

/** The user and password of a cluster's credentials, the password read from its variable now. */
export function resolveCredentials(
  credentials: ClusterCredentials | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { readonly username?: string; readonly password?: string } {
  if (credentials === undefined) return {};
  const variable = credentials.password_env_var;
  if (variable === undefined || variable === '') return { username: credentials.user };
  const password = env[variable];
  if (password === undefined)
    throw new HarnessError(
      'CLUSTER_PASSWORD_UNSET',
      `the cluster's credentials read the password of ${credentials.user} from ${variable}, which is not set; export it (empty for no password)`,
    );
  return { username: credentials.user, password };
}

/** A client for harness-side queries (DDL, ground truth). Sinks build their own clients. */
export function harnessClient(
  url: string,
  options: { timeoutMs?: number; settings?: ClickHouseSettings; credentials?: ClusterCredentials | undefined } = {},
): ClickHouseClient {
  return createClient({
    url,
    ...resolveCredentials(options.credentials),
    request_timeout: options.timeoutMs ?? 30_000,
    clickhouse_settings: options.settings ?? {},
    // Harness queries are not the subject of any fault: no retries hide an unhealthy node.
    keep_alive: { enabled: false },
    // Failures surface as thrown errors; the client's own console logging would only repeat them.
    log: { level: ClickHouseLogLevel.OFF },
  });
}

export async function queryRows<T>(
  client: ClickHouseClient,
  query: string,
  settings?: ClickHouseSettings,
): Promise<T[]> {
  const result = await client.query({ query, format: 'JSONEachRow', clickhouse_settings: settings });
  return result.json<T>();
}

export async function queryValue<T>(
  client: ClickHouseClient,
  query: string,
  settings?: ClickHouseSettings,
): Promise<T> {
  const rows = await queryRows<Record<string, T>>(client, query, settings);
  const first = rows[0];
  if (first === undefined) throw new Error(`query returned no rows: ${query}`);
  const value = Object.values(first)[0];
  return value as T;
}

/** Runs the same statement on every client: the embedded engine has no ON CLUSTER. */
export async function onEvery(clients: readonly ClickHouseClient[], query: string): Promise<void> {
  await Promise.all(clients.map((client) => client.command({ query })));
}
