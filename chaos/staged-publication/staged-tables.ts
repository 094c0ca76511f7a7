import { HarnessError } from '../../harness/base/index.ts';
import { createDatabaseDdl } from '../../harness/clickhouse/index.ts';
import { APART_STORAGE_POLICY, type ReplicaDescription } from '../../harness/cluster/index.ts';
import { stagingTable } from '../../sinks/index.ts';
import { databaseTaken } from '../executor/index.ts';
import type { RunUndo } from '../nemeses/index.ts';
import type { StagingMismatch } from './staged-faults.ts';
import { clientOf } from './staged-observe.ts';
import type { StagedRunContext } from './staged-run.ts';

/**
 * A table of the run; `mismatch` sets a staging table apart from its production table. The Keeper
 * path names the loads' shard rather than the `{shard}` macro, so a node of another shard can
 * join as one more replica of the same table (`replica-joins`).
 */
const tableDdl = (
  database: string,
  shard: string,
  table: string,
  replicated: boolean,
  dedupOff: boolean,
  mismatch?: StagingMismatch,
) => {
  const extra =
    mismatch === 'structure'
      ? ', extra UInt8 DEFAULT 0'
      : mismatch === 'secondary-index'
        ? ', INDEX payload_bloom payload TYPE bloom_filter GRANULARITY 1'
        : mismatch === 'projection'
          ? ', PROJECTION by_payload (SELECT id, payload ORDER BY payload)'
          : '';
  const columns = `(load UInt32, id UInt64, payload String${extra})`;
  const engine = replicated
    ? `ReplicatedMergeTree('/clickhouse/tables/${shard}/${database}/${table}', '{replica}')`
    : 'MergeTree';
  const partition = mismatch === 'partition-key' ? '(load, id % 2)' : 'load';
  const order = mismatch === 'ordering' ? '(id, payload)' : 'id';
  const settings = [
    ...(replicated && dedupOff ? ['replicated_deduplication_window = 0'] : []),
    ...(mismatch === 'storage-policy' ? [`storage_policy = '${APART_STORAGE_POLICY}'`] : []),
  ];
  const tail = settings.length === 0 ? '' : ` SETTINGS ${settings.join(', ')}`;
  return `CREATE TABLE ${database}.${table} ${columns} ENGINE = ${engine} PARTITION BY ${partition} ORDER BY ${order}${tail}`;
};

/** Production and staging tables for every table on every node, in the run's database (recorded per node before it is made). */
export async function createTables(
  context: StagedRunContext,
  undo: RunUndo,
  nodes: readonly ReplicaDescription[],
  tables: readonly string[],
  replicated: boolean,
  mismatch: StagingMismatch | undefined,
): Promise<void> {
  const { database } = context;
  const shard = loadsShard(context);
  await Promise.all(
    nodes.map((replica) =>
      onNode(context, undo, replica, async (client) => {
        for (const [index, table] of tables.entries()) {
          await client.command({ query: tableDdl(database, shard, table, replicated, context.dedupOff) });
          const apart = index === 0 ? mismatch : undefined;
          await client.command({
            query: tableDdl(database, shard, stagingTable(table), replicated, context.dedupOff, apart),
          });
        }
      }),
    ),
  );
}

/** Seed 004's new replica: the run's database on `joiner` (recorded first) and a replica of each production table. */
export async function joinProductionTables(
  context: StagedRunContext,
  undo: RunUndo,
  joiner: ReplicaDescription,
  tables: readonly string[],
): Promise<void> {
  const shard = loadsShard(context);
  await onNode(context, undo, joiner, async (client) => {
    for (const table of tables)
      await client.command({ query: tableDdl(context.database, shard, table, true, context.dedupOff) });
  });
}

function loadsShard(context: StagedRunContext): string {
  const shard = context.cluster.description.shards[0]?.name;
  if (shard === undefined) throw new HarnessError('STAGED_NO_SHARD', 'the cluster has no shard to publish to');
  return shard;
}

/** The run's database on one node, recorded in the undo before it is made, then `work` there. */
async function onNode(
  context: StagedRunContext,
  undo: RunUndo,
  replica: ReplicaDescription,
  work: (client: ReturnType<typeof clientOf>) => Promise<void>,
): Promise<void> {
  const { database } = context;
  const client = clientOf(context.cluster.description, replica);
  try {
    await undo.do(
      { kind: 'database', replica: replica.name, database },
      () => client.command({ query: createDatabaseDdl(database) }),
      databaseTaken,
    );
    await work(client);
  } finally {
    await client.close();
  }
}
