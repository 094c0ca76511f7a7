/**
 * Cluster smoke: a 2x2x1 embedded cluster, a replicated table on every node, an insert through
 * a client proxy fetched by the sibling replica through the interserver proxies, the same dedup
 * token refused by the other replica, then down. Exit 0 only when all of it held.
 */
import { harnessClient, queryValue, startCluster } from '../cluster/index.ts';
import { createShardedTable } from '../clickhouse/index.ts';
import { describeError } from '../base/index.ts';

const started = performance.now();
const cluster = await startCluster('embedded', { topology: { shards: 2, replicas: 2, keepers: 1 } });
let failed = false;
try {
  const replicas = cluster.description.shards.flatMap((shard) => shard.replicas);
  const clients = replicas.map((replica) => harnessClient(replica.http));
  console.log(
    `cluster up in ${Math.round(performance.now() - started)} ms: ${replicas.map((r) => r.name).join(', ')} behind ${cluster.description.toxiproxy}`,
  );
  await createShardedTable(clients, { database: 'smoke', name: 'events', columns: 'id UInt64', orderBy: 'id' });
  const [first, second] = clients;
  if (!first || !second) throw new Error('the smoke needs two replicas in shard s1');
  const rows = Array.from({ length: 100 }, (_, id) => ({ id }));
  await first.insert({
    table: 'smoke.events_rep',
    values: rows,
    format: 'JSONEachRow',
    clickhouse_settings: { insert_deduplication_token: 'smoke-1' },
  });
  await second.insert({
    table: 'smoke.events_rep',
    values: rows,
    format: 'JSONEachRow',
    clickhouse_settings: { insert_deduplication_token: 'smoke-1' },
  });
  await second.command({ query: 'SYSTEM SYNC REPLICA smoke.events_rep' });
  const count = Number(await queryValue<string>(second, 'SELECT count() FROM smoke.events_rep'));
  const viaDist = Number(await queryValue<string>(clients[2] ?? second, 'SELECT count() FROM smoke.events_dist'));
  console.log(
    `replica s1r2 holds ${count} rows (expected 100: fetched once, deduplicated once); _dist sees ${viaDist}`,
  );
  failed = count !== 100 || viaDist !== 100;
  await Promise.all(clients.map((client) => client.close()));
} catch (error) {
  console.error(`smoke failed: ${describeError(error)}`);
  failed = true;
} finally {
  await cluster.down();
}
console.log(failed ? 'smoke: FAILED' : 'smoke: ok');
process.exit(failed ? 1 : 0);
