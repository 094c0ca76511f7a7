/**
 * Test fixture: starts a 1x1x1 embedded cluster owned by this process (with as many Kafka brokers
 * as its first argument says), prints its state and then waits to be killed, like a chaos runner
 * that dies mid-run.
 */
import { startEmbeddedCluster } from '../embedded/start-embedded.ts';

const kafka = Number(process.argv[2] ?? '0');
const cluster = await startEmbeddedCluster({ topology: { shards: 1, replicas: 1, keepers: 1, kafka } });
process.stdout.write(`${JSON.stringify(cluster.clusterState)}\n`);
setInterval(() => undefined, 60_000);
