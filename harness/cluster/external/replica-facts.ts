import { ClickHouseError, type ClickHouseClient } from '@clickhouse/client';
import { harnessClient, queryRows } from '../client.ts';
import { HarnessError } from '../../base/index.ts';
import type { ClusterCredentials, ClusterDescription, ReplicaDescription } from '../description.ts';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** A user the sinks or the harness connect as, and whether its queries reach `system.query_log`. */
export interface UserLogging {
  /** Where the file names it: `credentials.user`, `setting_users.quorum_parallel`. */
  readonly field: string;
  readonly user: string;
  /** `getSetting('log_queries')` as that user; absent when the login was refused (`refused`). */
  readonly logQueries?: boolean;
  readonly refused?: string;
}

/** What one replica says about itself, read at attach time to hold the cluster file against. */
export interface ReplicaFacts {
  readonly shard: string;
  readonly replica: string;
  /** Replicas per shard of the file's cluster in its `system.clusters`, by `shard_num`; empty: no such cluster. */
  readonly layout: readonly number[];
  readonly macros: Readonly<Record<string, string>>;
  /** `getMacro('replica')` asked through the replica's `http`, or why that query failed. */
  readonly viaHttp: { readonly answer: string } | { readonly failed: string };
  /** `system.zookeeper_connection`; absent where the server has no such table (the embedded engine). */
  readonly keeperLinks?: readonly HostPort[];
  /**
   * The address the node advertises to its siblings for replication (`interserver_http_host`,
   * empty for its own host name, and `interserver_http_port`); absent when the server does not
   * show it (port 0: the embedded engine, whose launcher advertises it).
   */
  readonly interserver?: HostPort;
  readonly logging: readonly UserLogging[];
}

const firstLine = (error: unknown) => (error as Error).message.split('\n')[0] ?? '';

async function withClient<T>(
  url: string,
  credentials: ClusterCredentials | undefined,
  use: (client: ClickHouseClient) => Promise<T>,
): Promise<T> {
  const client = harnessClient(url, { timeoutMs: 5000, credentials });
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** The users whose queries the checkers read from `query_log`: the one the sinks connect as, and each setting user. */
function loggedUsers(description: ClusterDescription): { field: string; user: string }[] {
  return [
    { field: 'credentials.user', user: description.credentials?.user ?? 'default' },
    ...Object.entries(description.setting_users ?? {}).map(([profile, user]) => ({
      field: `setting_users.${profile}`,
      user: user ?? '',
    })),
  ];
}

async function userLogging(
  replica: ReplicaDescription,
  description: ClusterDescription,
  field: string,
  user: string,
): Promise<UserLogging> {
  const credentials = { ...description.credentials, user };
  try {
    const [row] = await withClient(replica.direct_http, credentials, (client) =>
      queryRows<{ on: number }>(client, "SELECT toUInt8(getSetting('log_queries')) AS on"),
    );
    return { field, user, logQueries: Number(row?.on) === 1 };
  } catch (error) {
    return { field, user, refused: firstLine(error) };
  }
}

async function keeperLinks(client: ClickHouseClient): Promise<HostPort[] | undefined> {
  try {
    const rows = await queryRows<{ host: string; port: number }>(
      client,
      'SELECT host, port FROM system.zookeeper_connection',
    );
    return rows.map((row) => ({ host: row.host, port: Number(row.port) }));
  } catch (error) {
    if (error instanceof ClickHouseError && error.type === 'UNKNOWN_TABLE') return undefined;
    throw error;
  }
}

async function interserverAddress(client: ClickHouseClient): Promise<HostPort | undefined> {
  const rows = await queryRows<{ name: string; value: string }>(
    client,
    "SELECT name, value FROM system.server_settings WHERE name IN ('interserver_http_host', 'interserver_http_port')",
  );
  const value = (name: string) => rows.find((row) => row.name === name)?.value ?? '';
  const port = Number(value('interserver_http_port'));
  return port > 0 ? { host: value('interserver_http_host'), port } : undefined;
}

async function readOne(
  description: ClusterDescription,
  shard: string,
  replica: ReplicaDescription,
): Promise<ReplicaFacts> {
  const { credentials } = description;
  const direct = await withClient(replica.direct_http, credentials, async (client) => {
    try {
      // The cluster name is a checked plain name (`NAME`): it cannot close the quotes.
      const layout = await queryRows<{ replicas: number }>(
        client,
        `SELECT count() AS replicas FROM system.clusters WHERE cluster = '${description.cluster}' GROUP BY shard_num ORDER BY shard_num`,
      );
      const macros = await queryRows<{ macro: string; substitution: string }>(
        client,
        'SELECT macro, substitution FROM system.macros',
      );
      return {
        layout: layout.map((row) => Number(row.replicas)),
        macros: Object.fromEntries(macros.map((row) => [row.macro, row.substitution])),
        keeperLinks: await keeperLinks(client),
        interserver: await interserverAddress(client),
      };
    } catch (error) {
      throw new HarnessError(
        'EXTERNAL_UNREACHABLE',
        `replica ${replica.name} answered its ping but not a query on system tables: ${firstLine(error)}`,
      );
    }
  });
  const viaHttp = await withClient(replica.http, credentials, (client) =>
    queryRows<{ name: string }>(client, "SELECT getMacro('replica') AS name"),
  ).then(
    ([row]) => ({ answer: row?.name ?? '' }),
    (error: unknown) => ({ failed: firstLine(error) }),
  );
  const logging = await Promise.all(
    loggedUsers(description).map(({ field, user }) => userLogging(replica, description, field, user)),
  );
  return { shard, replica: replica.name, ...direct, viaHttp, logging };
}

/** Reads every replica's facts, directly and through its client proxy; the cluster is not changed. */
export function readReplicaFacts(description: ClusterDescription): Promise<ReplicaFacts[]> {
  return Promise.all(
    description.shards.flatMap((shard) => shard.replicas.map((replica) => readOne(description, shard.name, replica))),
  );
}
