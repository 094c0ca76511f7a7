import { join } from 'node:path';
import type { Logger } from 'pino';
import { HarnessError, PROJECT_ROOT } from '../base/index.ts';
import { writeClusterState, type ClusterState } from './cluster-state.ts';
import { describeLauncherExit } from './embedded/launcher.ts';
import { httpPing, keeperHealthy, waitUntil } from './health.ts';
import { spawnLocal, tailOfFile, type SpawnOptions, type SpawnedProcess } from './process/local-process.ts';
import { kafkaAnswers } from './kafka/api-versions.ts';
import { proxyServerLaunch } from './proxy-server.ts';
import { KAFKA_PRODUCER } from './topology.ts';
import { createProxies, type ProxyDefinition } from './proxy-wiring.ts';

const START_TIMEOUT_MS = 60_000;

export interface LocalLaunchPlan {
  readonly keepers: readonly SpawnOptions[];
  readonly nodes: readonly SpawnOptions[];
  /** Empty when proxies are off. */
  readonly proxies: readonly ProxyDefinition[];
  readonly seed?: number | undefined;
  /** Writes and formats the Kafka brokers (`state.kafka`) and gives their command lines; absent without brokers. */
  readonly brokers?: () => Promise<readonly SpawnOptions[]>;
}

/** Waits for health, failing fast with the exit reason and log tail if the process dies first. */
async function awaitHealthy(name: string, spawned: SpawnedProcess, check: () => Promise<boolean>): Promise<void> {
  let exit: string | undefined;
  void spawned.exited.then(({ code, signal }) => {
    exit = describeLauncherExit(code, signal);
  });
  try {
    await waitUntil(name, check, {
      timeoutMs: START_TIMEOUT_MS,
      abortIf: () => (exit === undefined ? undefined : `${name} exited during start-up: ${exit}`),
    });
  } catch (error) {
    throw new HarnessError(
      'MEMBER_START_FAILED',
      `${(error as Error).message}\n--- last lines of ${spawned.record.logFile}\n${tailOfFile(spawned.record.logFile)}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Start order: Keepers and the fault proxy together, then the proxies, then every ClickHouse
 * node together (a node needs its Keeper link at start). Each process is recorded in the state
 * file the moment it exists, so a crash here leaves nothing the reaper cannot find.
 */
export async function startLocalMembers(state: ClusterState, plan: LocalLaunchPlan, log: Logger): Promise<void> {
  const started = Date.now();
  const early: Promise<void>[] = state.keepers.map((keeper, index) => {
    const options = plan.keepers[index];
    if (options === undefined) throw new Error(`no launch plan for keeper ${keeper.name}`);
    const spawned = spawnLocal(options);
    keeper.process = spawned.record;
    return awaitHealthy(keeper.name, spawned, () => keeperHealthy('127.0.0.1', keeper.clientPort));
  });
  if (state.toxiproxy !== null) {
    const api = state.toxiproxy;
    const spawned = spawnLocal({
      name: 'toxiproxy',
      ...proxyServerLaunch(api.server ?? 'builtin', { port: api.port, seed: plan.seed }),
      cwd: PROJECT_ROOT,
      logFile: join(state.dir, 'toxiproxy.log'),
    });
    state.toxiproxy = { ...api, process: spawned.record };
    early.push(awaitHealthy('toxiproxy', spawned, () => versionAnswers(api.url)));
  }
  writeClusterState(state);
  await Promise.all(early);
  if (state.toxiproxy !== null) await createProxies(state.toxiproxy.url, plan.proxies);
  log.debug({ ms: Date.now() - started }, 'keepers and proxies ready');

  // Brokers start beside the nodes: nothing of ClickHouse needs them until a Kafka table exists.
  const brokers = startBrokers(state, plan);
  const nodes = state.nodes.map((node, index) => {
    const options = plan.nodes[index];
    if (options === undefined) throw new Error(`no launch plan for node ${node.name}`);
    const spawned = spawnLocal(options);
    node.process = spawned.record;
    return awaitHealthy(node.name, spawned, () => httpPing(`http://127.0.0.1:${node.httpPort}`));
  });
  writeClusterState(state);
  await Promise.all([...nodes, brokers]);
  log.info(
    {
      ms: Date.now() - started,
      nodes: state.nodes.length,
      keepers: state.keepers.length,
      brokers: state.kafka?.length,
    },
    'cluster healthy',
  );
}

async function startBrokers(state: ClusterState, plan: LocalLaunchPlan): Promise<void> {
  const brokers = state.kafka ?? [];
  if (plan.brokers === undefined || brokers.length === 0) return;
  const launches = await plan.brokers();
  await Promise.all(
    brokers.map((broker, index) => {
      const options = launches[index];
      if (options === undefined) throw new Error(`no launch plan for broker ${broker.name}`);
      const spawned = spawnLocal(options);
      broker.process = spawned.record;
      writeClusterState(state);
      const producer = broker.clients[KAFKA_PRODUCER];
      if (producer === undefined) throw new Error(`broker ${broker.name} has no producer listener`);
      return awaitHealthy(broker.name, spawned, () => kafkaAnswers(producer.listener));
    }),
  );
}

async function versionAnswers(url: string): Promise<boolean> {
  try {
    const response = await fetch(new URL('/version', url), { signal: AbortSignal.timeout(1000) });
    return response.ok;
  } catch {
    return false;
  }
}
