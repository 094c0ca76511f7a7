import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { componentLogger, HarnessError } from '../../base/index.ts';
import { writeClusterState, type ClusterState, type KeeperState, type NodeState } from '../cluster-state.ts';
import { clickhouseKeeperConfig } from '../config/keeper-config.ts';
import { clickhouseNodeConfig } from '../config/clickhouse-config.ts';
import { usersConfig } from '../config/setting-profiles.ts';
import { findOnPath } from '../embedded/preflight.ts';
import { assignPorts, portsNeeded, type LocalClusterOptions } from '../embedded/start-embedded.ts';
import { localNodeAddressing, usersFile } from '../local-addressing.ts';
import { StartedLocalCluster } from '../local-cluster.ts';
import { startLocalMembers } from '../local-launch.ts';
import { assignKafkaPorts, kafkaPortsNeeded, prepareBrokers } from '../kafka/broker-launch.ts';
import { javaForKafka, kafkaClasspath } from '../kafka/kafka-distribution.ts';
import { realToxiproxyBinary } from '../real-toxiproxy/real-toxiproxy.ts';
import { PortAllocator } from '../ports.ts';
import { dataRoot } from '../ram-dir.ts';
import { proxyDefinitions, type WiringHosts } from '../proxy-wiring.ts';
import { reapLeftovers } from '../reaper.ts';
import { createRunDir } from '../run-dir.ts';
import { statePaths } from '../state-dir.ts';
import { planTopology } from '../topology.ts';

/** The real server listens for replication on 127.0.0.2 behind a proxy on 127.0.0.1, same port. */
export const BINARY_HOSTS: WiringHosts = {
  proxyListen: '127.0.0.1',
  client: () => '127.0.0.1',
  interserver: () => '127.0.0.2',
  keeper: () => '127.0.0.1',
};

export function locateClickhouseBinary(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CLICKHOUSE_BINARY;
  if (configured !== undefined && configured !== '') {
    if (!existsSync(configured))
      throw new HarnessError('CLICKHOUSE_BINARY_MISSING', `CLICKHOUSE_BINARY=${configured} does not exist`);
    return configured;
  }
  const found = findOnPath('clickhouse', env.PATH);
  if (found === undefined) {
    throw new HarnessError(
      'CLICKHOUSE_BINARY_MISSING',
      'the binary backend needs the official `clickhouse` binary on PATH or in CLICKHOUSE_BINARY; none found (use --backend embedded here)',
    );
  }
  return found;
}

export function binaryNodeConfig(state: ClusterState, node: NodeState): string {
  const { replica, addressing } = localNodeAddressing(state, node, {
    listenHosts: ['127.0.0.1'],
    interserver: {
      port: node.interserverPort,
      listenHost: state.proxiesEnabled ? '127.0.0.2' : '127.0.0.1',
      advertiseHost: '127.0.0.1',
    },
  });
  return clickhouseNodeConfig(replica, addressing);
}

export function binaryKeeperConfig(state: ClusterState, keeper: KeeperState): string {
  const home = join(state.dir, 'keepers', keeper.name);
  return clickhouseKeeperConfig(
    { name: keeper.name, id: keeper.id },
    {
      listenHost: '127.0.0.1',
      clientPort: keeper.clientPort,
      raft: state.keepers.map((member) => ({ id: member.id, host: '127.0.0.1', port: member.peerPort })),
      paths: {
        log: join(home, 'keeper.log'),
        errorLog: join(home, 'keeper.err.log'),
        coordination: join(dataRoot(state.dir), 'keepers', keeper.name, 'coordination'),
      },
    },
  );
}

/** Command lines of the binary backend: `clickhouse server` and `clickhouse keeper` with generated configs. */
export function binaryCommands(binary: string, configPath: string, kind: 'server' | 'keeper'): string[] {
  return [binary, kind, `--config-file=${configPath}`];
}

export async function startBinaryCluster(options: LocalClusterOptions): Promise<StartedLocalCluster> {
  const log = options.logger ?? componentLogger('cluster');
  planTopology(options.topology);
  const binary = locateClickhouseBinary();
  const proxyServer = options.proxyServer ?? 'builtin';
  if (proxyServer === 'toxiproxy') realToxiproxyBinary();
  const kafka = (options.topology.kafka ?? 0) > 0 ? { java: javaForKafka(), classpath: kafkaClasspath() } : undefined;
  for (const reaped of await reapLeftovers()) log.warn(reaped, 'removed a leftover run');
  const proxiesEnabled = options.proxies ?? true;
  const state = await createRunDir({ backend: 'binary', topology: options.topology, proxiesEnabled, dir: options.dir });
  const allocator = new PortAllocator(statePaths().ports, state.dir);
  try {
    const toxiproxyPort =
      options.toxiproxyPort === undefined
        ? undefined
        : await allocator.reserveExact(options.toxiproxyPort, 'fault proxy API');
    const ports = await allocator.allocate(
      portsNeeded(options.topology) + kafkaPortsNeeded(options.topology) + (toxiproxyPort === undefined ? 1 : 0),
    );
    assignPorts(state, options.topology, ports, true);
    assignKafkaPorts(state, options.topology, ports);
    const apiPort = toxiproxyPort ?? ports.shift() ?? 0;
    Object.assign(state, { ports: [...allocator.reserved] });
    if (proxiesEnabled) state.toxiproxy = { url: `http://127.0.0.1:${apiPort}`, port: apiPort, server: proxyServer };
    writeClusterState(state);
    await startLocalMembers(
      state,
      {
        keepers: state.keepers.map((keeper) => {
          const home = join(state.dir, 'keepers', keeper.name);
          mkdirSync(home, { recursive: true });
          const configPath = join(home, 'keeper.xml');
          writeFileSync(configPath, binaryKeeperConfig(state, keeper));
          const [command, ...args] = binaryCommands(binary, configPath, 'keeper');
          return { name: keeper.name, command: command ?? binary, args, cwd: home, logFile: join(home, 'stdout.log') };
        }),
        nodes: state.nodes.map((node) => {
          mkdirSync(node.logDir, { recursive: true });
          mkdirSync(node.dataDir, { recursive: true });
          writeFileSync(node.configPath, binaryNodeConfig(state, node));
          writeFileSync(usersFile(node), usersConfig(options.topology.replicas, { withDefault: true }));
          const [command, ...args] = binaryCommands(binary, node.configPath, 'server');
          return {
            name: node.name,
            command: command ?? binary,
            args,
            cwd: node.dataDir,
            logFile: join(node.logDir, 'stdout.log'),
          };
        }),
        proxies: proxiesEnabled ? proxyDefinitions(state, BINARY_HOSTS) : [],
        seed: options.seed,
        ...(kafka === undefined ? {} : { brokers: () => prepareBrokers(state, kafka.java, kafka.classpath) }),
      },
      log,
    );
  } catch (error) {
    await new StartedLocalCluster(state, log).down().catch(() => undefined);
    allocator.releaseAll();
    throw error;
  }
  return new StartedLocalCluster(state, log);
}
