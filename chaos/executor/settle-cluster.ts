import { harnessClient, queryValue } from '../../harness/clickhouse/client.ts';
import type { StartedCluster } from '../../harness/cluster/started-cluster.ts';
import { HarnessError } from '../../harness/errors.ts';

/**
 * Brings the cluster back to health after a schedule: every member running, every replica of
 * the run's database with its Keeper session and no read-only table (a table an earlier run left
 * read-only is that run's finding, not a reason to fail every run after it; a replica that lost
 * Keeper shows the run's own tables read-only too). A cluster that cannot settle is an
 * infrastructure error, never a verdict on the sink. Returns the members it found dead: after
 * every fault was healed, a dead member died on its own.
 */
export async function settleCluster(cluster: StartedCluster, database: string, timeoutMs = 90_000): Promise<string[]> {
  const revived: string[] = [];
  for (const name of cluster.memberNames) {
    const state = await cluster.memberState(name);
    if (state === 'paused') await cluster.resume(name);
    if (state === 'dead') {
      revived.push(name);
      await cluster.start(name);
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (const replica of cluster.description.shards.flatMap((shard) => shard.replicas)) {
    const client = harnessClient(replica.direct_http, {
      timeoutMs: 5000,
      credentials: cluster.description.credentials,
    });
    try {
      for (;;) {
        const readOnly = await queryValue<string | number>(
          client,
          `SELECT count() FROM system.replicas WHERE database = '${database}' AND (is_readonly OR is_session_expired)`,
        ).catch(() => 'unreachable');
        if (String(readOnly) === '0') break;
        if (Date.now() > deadline) {
          throw new HarnessError(
            'CLUSTER_NOT_SETTLED',
            `replica ${replica.name} still has read-only tables in ${database} (${readOnly}) ${timeoutMs} ms after healing; see its log in the run directory`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    } finally {
      await client.close();
    }
  }
  return revived;
}
