/**
 * What a Keeper ensemble outage costs an INSERT on the embedded cluster (1 shard x 2 replicas, 3
 * ZooKeeper members), measured with the server's own Keeper retries and a client that waits
 * 5 minutes: the leader paused (one INSERT after another, each timed), and a majority paused
 * (`--inserts` INSERTs at once, each timed to its error). Figures, not a test: the numbers go in
 * `chaos/nemeses/README.md`.
 */
import { ClickHouseError } from '@clickhouse/client';
import { parseArgs } from 'node:util';
import { harnessClient, keeperRole } from '../../../harness/cluster/index.ts';
import { createShardedTable } from '../../../harness/clickhouse/index.ts';
import { startEmbeddedCluster } from '../../../harness/cluster/embedded/start-embedded.ts';

const { values } = parseArgs({ options: { inserts: { type: 'string', default: '6' } } });
const count = Number(values.inserts);

const seconds = (ms: number) => Number((ms / 1000).toFixed(2));
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const cluster = await startEmbeddedCluster({ topology: { shards: 1, replicas: 2, keepers: 3 } });
try {
  const replica = cluster.description.shards[0]?.replicas[0];
  if (replica === undefined) throw new Error('no replica');
  const client = harnessClient(replica.direct_http, { timeoutMs: 300_000 });
  const ddl = cluster.description.shards.flatMap((shard) => shard.replicas.map((r) => harnessClient(r.direct_http)));
  await createShardedTable(ddl, { database: 'bench', name: 'events', columns: 'id String', orderBy: 'id' });
  await Promise.all(ddl.map((c) => c.close()));
  const roles = async () =>
    Promise.all(cluster.description.keepers.map(async (k) => ({ name: k.name, role: await keeperRole(k.address) })));
  const timedInsert = async (id: string) => {
    const started = performance.now();
    try {
      await client.insert({ table: 'bench.events_rep', values: [{ id }], format: 'JSONEachRow' });
      return { ms: performance.now() - started, outcome: 'ok' };
    } catch (error) {
      return {
        ms: performance.now() - started,
        outcome: (error instanceof ClickHouseError ? error.type : undefined) ?? String(error),
      };
    }
  };
  const leaderFirst = async () =>
    (await roles()).sort((a, b) => Number(b.role === 'leader') - Number(a.role === 'leader')).map((k) => k.name);

  const [leader] = await leaderFirst();
  if (leader === undefined) throw new Error('no Keeper leader');
  await cluster.pause(leader);
  const leaderPaused = [];
  for (let i = 0; i < count; i++) leaderPaused.push(await timedInsert(`leader-${i}`));
  await cluster.resume(leader);
  await cluster.waitHealthy(leader);

  const majority = (await leaderFirst()).slice(0, 2);
  for (const member of majority) await cluster.pause(member);
  const quorumLost = await Promise.all(Array.from({ length: count }, (_, i) => timedInsert(`quorum-${i}`)));
  await Promise.all(majority.map((member) => cluster.resume(member)));

  const summary = (label: string, results: readonly { ms: number; outcome: string }[]) => ({
    case: label,
    inserts: results.length,
    outcomes: [...new Set(results.map((r) => r.outcome))],
    first_s: seconds(results[0]?.ms ?? Number.NaN),
    median_s: seconds(median(results.map((r) => r.ms))),
    max_s: seconds(Math.max(...results.map((r) => r.ms))),
    min_s: seconds(Math.min(...results.map((r) => r.ms))),
  });
  const results = [
    summary(`leader ${leader} paused`, leaderPaused),
    summary(`majority ${majority.join('+')} paused`, quorumLost),
  ];
  for (const row of results)
    console.log(
      `${row.case}: ${row.outcomes.join('/')} — first ${row.first_s} s, median ${row.median_s} s, max ${row.max_s} s, min ${row.min_s} s`,
    );
  console.log(JSON.stringify({ bench: 'keeper-outage', results }));
  await client.close();
} finally {
  await cluster.down();
}
