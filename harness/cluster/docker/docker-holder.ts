/**
 * Holds a docker-backend cluster for `cluster up --backend docker`: testcontainers' reaper
 * removes the containers when their process exits, so this detached process owns them until
 * `cluster down` sends it SIGTERM. Prints the description as one JSON line when ready.
 */
import { describeError } from '../../base/index.ts';
import { startDockerCluster } from './start-docker.ts';

const [dir, runId, shards, replicas, keepers, proxies] = process.argv.slice(2);
try {
  if (dir === undefined || runId === undefined)
    throw new Error('usage: docker-holder.ts DIR RUN_ID SHARDS REPLICAS KEEPERS proxies|no-proxies');
  const cluster = await startDockerCluster({
    topology: { shards: Number(shards), replicas: Number(replicas), keepers: Number(keepers) },
    proxies: proxies !== 'no-proxies',
    claimedRun: { runId, dir },
  });
  const stop = () => void cluster.down().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`${JSON.stringify(cluster.description)}\n`);
  setInterval(() => undefined, 60_000);
} catch (error) {
  process.stderr.write(`${describeError(error)}\n`);
  process.exit(1);
}
