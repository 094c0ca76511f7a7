import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ClusterDescription, queryRows } from '../cluster/index.ts';
import { ClusterAdmin } from '../clickhouse/index.ts';
import { namesDatabase } from './ground-truth.ts';

const DUMPS: Readonly<Record<string, (database: string) => string>> = {
  // The rows the oracle reads, INSERTs refused before they started (which log no database) included.
  query_log: (db) =>
    `SELECT event_time_microseconds, query_id, type, query_kind, exception_code, written_rows, ProfileEvents['DuplicatedInsertedBlocks'] AS duplicated_blocks, Settings['insert_deduplication_token'] AS token FROM system.query_log WHERE has(databases, '${db}') OR (type = 'ExceptionBeforeStart' AND match(query, '${namesDatabase(db).replace(/[\\']/g, '\\$&')}')) ORDER BY event_time_microseconds`,
  part_log: (db) =>
    `SELECT event_time_microseconds, event_type, table, part_name, rows, query_id, error FROM system.part_log WHERE database = '${db}' ORDER BY event_time_microseconds`,
  replicas: (db) => `SELECT * FROM system.replicas WHERE database = '${db}'`,
  replication_queue: (db) => `SELECT * FROM system.replication_queue WHERE database = '${db}'`,
  parts: (db) => `SELECT table, name, rows, active, modification_time FROM system.parts WHERE database = '${db}'`,
};

/**
 * The file name of one replica's dump: the replica name comes from a cluster description, so
 * anything but a plain name character is percent-encoded; no separator, no `..` path, ever.
 */
const dumpFile = (replica: string, table: string, suffix: string): string =>
  `${replica.replace(/[^A-Za-z0-9_-]/g, (char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`)}.${table}.${suffix}`;

/** Writes the system tables a reader of a report needs, one JSON-lines file per replica and table. */
export async function dumpSystemTables(description: ClusterDescription, database: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await new ClusterAdmin(description).eachReplica(
    async ({ replica, client }) => {
      for (const [table, query] of Object.entries(DUMPS)) {
        try {
          const rows = await queryRows<Record<string, unknown>>(client, query(database));
          writeFileSync(
            join(dir, dumpFile(replica.name, table, 'jsonl')),
            rows.map((row) => JSON.stringify(row)).join('\n') + (rows.length > 0 ? '\n' : ''),
          );
        } catch (error) {
          writeFileSync(join(dir, dumpFile(replica.name, table, 'error.txt')), `${(error as Error).message}\n`);
        }
      }
    },
    { timeoutMs: 20_000 },
  );
}
