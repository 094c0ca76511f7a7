import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { componentLogger } from '../../base/index.ts';
import { writeClusterState, type ClusterState, type KeeperState, type NodeState } from '../cluster-state.ts';
import { clickhouseNodeConfig } from '../config/clickhouse-config.ts';
import { usersConfig } from '../config/setting-profiles.ts';
import { zooCfg } from '../config/zookeeper-config.ts';
import { localNodeAddressing, usersFile } from '../local-addressing.ts';
import { StartedLocalCluster } from '../local-cluster.ts';
import { PortAllocator } from '../ports.ts';
import { dataRoot } from '../ram-dir.ts';
import { EMBEDDED_HOSTS, proxyDefinitions } from '../proxy-wiring.ts';
import { reapLeftovers } from '../reaper.ts';
import { createRunDir } from '../run-dir.ts';
import { statePaths } from '../state-dir.ts';
import { clientProxyHost, planTopology, type TopologySpec } from '../topology.ts';
import { startLocalMembers, type LocalLaunchPlan } from '../local-launch.ts';
import { ensureLauncher } from './launcher.ts';
import { assignKafkaPorts, kafkaPortsNeeded, prepareBrokers } from '../kafka/broker-launch.ts';
import { kafkaClasspath } from '../kafka/kafka-distribution.ts';
import { realToxiproxyBinary, type ProxyServerKind } from '../real-toxiproxy/real-toxiproxy.ts';
import { locateLibrary, verifyLibrary } from './library.ts';
import { embeddedPreflight } from './preflight.ts';

export interface LocalClusterOptions {
  readonly topology: TopologySpec;
  /** Run directory; default `<state dir>/runs/<run id>`. */
  readonly dir?: string;
  /** Put every link behind a fault proxy (default true). */
  readonly proxies?: boolean;
  /** Which fault proxy: ours (default) or the real Toxiproxy, built by `scripts/setup.sh` with Go. */
  readonly proxyServer?: ProxyServerKind;
  readonly toxiproxyPort?: number;
  readonly seed?: number;
  readonly logger?: Logger;
}

/** Keeps the engine serving: clickhouse-local exits when its query ends. */
export const KEEP_ALIVE_QUERY =
  'SYSTEM START LISTEN TCP; SYSTEM START LISTEN HTTP; SELECT sleepEachRow(1) FROM numbers(1000000000) SETTINGS max_block_size=1 FORMAT Null';

/**
 * Ports of one node: HTTP, TCP, (a separate interserver port for the real server), client
 * proxy, interserver proxy, then one Keeper-link proxy per Keeper.
 */
export function assignPorts(
  state: ClusterState,
  topology: TopologySpec,
  ports: number[],
  separateInterserver = false,
): void {
  // With a separate interserver port (the real server) the proxy in front listens on that same
  // port number on 127.0.0.1 while the node listens on 127.0.0.2.
  const plan = planTopology(topology);
  const next = () => {
    const port = ports.shift();
    if (port === undefined) throw new Error('port allocation ran short');
    return port;
  };
  const clientPort = next();
  for (const keeper of plan.keepers) {
    state.keepers.push({
      name: keeper.name,
      id: keeper.id,
      clientPort: next(),
      peerPort: next(),
      electionPort: next(),
    });
  }
  for (const replica of plan.replicas) {
    const dataDir = join(dataRoot(state.dir), 'nodes', replica.name, 'data');
    const httpPort = next();
    const tcpPort = next();
    const interserverPort = separateInterserver ? next() : httpPort;
    state.nodes.push({
      name: replica.name,
      shard: replica.shard,
      httpPort,
      tcpPort,
      interserverPort,
      clientHost: clientProxyHost(replica),
      proxyPorts: {
        client: clientPort,
        interserver: separateInterserver ? interserverPort : next(),
        keepers: Object.fromEntries(plan.keepers.map((keeper) => [keeper.name, next()])),
      },
      configPath: join(state.dir, 'nodes', replica.name, 'config.xml'),
      dataDir,
      logDir: join(state.dir, 'nodes', replica.name, 'log'),
    });
  }
}

export function portsNeeded(topology: TopologySpec): number {
  const perNode = 3 + topology.keepers;
  return 1 + topology.keepers * 3 + topology.shards * topology.replicas * perNode;
}

export function embeddedNodeConfig(state: ClusterState, node: NodeState): string {
  const { replica, addressing } = localNodeAddressing(state, node, { listenHosts: ['127.0.0.1', '127.0.0.2'] });
  return clickhouseNodeConfig(replica, addressing);
}

/** Where replication requests for this node are sent: its interserver proxy, or the second listen host. */
export function advertisedInterserver(state: ClusterState, node: NodeState): { host: string; port: number } {
  return state.proxiesEnabled
    ? { host: '127.0.0.1', port: node.proxyPorts.interserver }
    : { host: '127.0.0.2', port: node.interserverPort };
}

/**
 * The embedded backend: ZooKeeper from Debian, the fault proxy, and ClickHouse 26.7 from npm
 * chDB run as servers through the project's launcher.
 */
export async function startEmbeddedCluster(options: LocalClusterOptions): Promise<StartedLocalCluster> {
  const log = options.logger ?? componentLogger('cluster');
  planTopology(options.topology);
  const { java, zookeeperJar } = embeddedPreflight();
  const proxyServer = options.proxyServer ?? 'builtin';
  if (proxyServer === 'toxiproxy') realToxiproxyBinary();
  const kafka = (options.topology.kafka ?? 0) > 0 ? kafkaClasspath() : undefined;
  const launcher = ensureLauncher();
  const library = locateLibrary();
  await verifyLibrary(library, statePaths().libraryCache);
  for (const reaped of await reapLeftovers()) log.warn(reaped, 'removed a leftover run');

  const proxiesEnabled = options.proxies ?? true;
  const state = await createRunDir({
    backend: 'embedded',
    topology: options.topology,
    proxiesEnabled,
    dir: options.dir,
  });
  const allocator = new PortAllocator(statePaths().ports, state.dir);
  try {
    const toxiproxyPort =
      options.toxiproxyPort === undefined
        ? undefined
        : await allocator.reserveExact(options.toxiproxyPort, 'fault proxy API');
    const ports = await allocator.allocate(
      portsNeeded(options.topology) + kafkaPortsNeeded(options.topology) + (toxiproxyPort === undefined ? 1 : 0),
    );
    assignPorts(state, options.topology, ports);
    assignKafkaPorts(state, options.topology, ports);
    const apiPort = toxiproxyPort ?? ports.shift();
    if (apiPort === undefined) throw new Error('port allocation ran short');
    Object.assign(state, { ports: [...allocator.reserved] });
    if (proxiesEnabled) state.toxiproxy = { url: `http://127.0.0.1:${apiPort}`, port: apiPort, server: proxyServer };
    writeClusterState(state);

    const launch: LocalLaunchPlan = {
      keepers: state.keepers.map((keeper) => zookeeperLaunch(state, keeper, java, zookeeperJar)),
      nodes: state.nodes.map((node) => {
        mkdirSync(node.logDir, { recursive: true });
        mkdirSync(node.dataDir, { recursive: true });
        writeFileSync(node.configPath, embeddedNodeConfig(state, node));
        writeFileSync(usersFile(node), usersConfig(options.topology.replicas, { withDefault: true }));
        const advertise = advertisedInterserver(state, node);
        return {
          name: node.name,
          command: launcher,
          args: [
            library,
            advertise.host,
            String(advertise.port),
            `--config-file=${node.configPath}`,
            `--path=${node.dataDir}/`,
            `--query=${KEEP_ALIVE_QUERY}`,
          ],
          cwd: node.dataDir,
          logFile: join(node.logDir, 'stdout.log'),
        };
      }),
      proxies: proxiesEnabled ? proxyDefinitions(state, EMBEDDED_HOSTS) : [],
      seed: options.seed,
      ...(kafka === undefined ? {} : { brokers: () => prepareBrokers(state, java, kafka) }),
    };
    await startLocalMembers(state, launch, log);
  } catch (error) {
    await new StartedLocalCluster(state, log).down().catch(() => undefined);
    allocator.releaseAll();
    throw error;
  }
  return new StartedLocalCluster(state, log);
}

function zookeeperLaunch(state: ClusterState, keeper: KeeperState, java: string, jar: string) {
  const home = join(state.dir, 'keepers', keeper.name);
  const dataDir = join(dataRoot(state.dir), 'keepers', keeper.name, 'data');
  mkdirSync(home, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const ensemble = state.keepers.map((member) => ({
    keeper: { name: member.name, id: member.id },
    ports: { client: member.clientPort, peer: member.peerPort, election: member.electionPort },
  }));
  const self = ensemble.find((member) => member.keeper.name === keeper.name);
  if (self === undefined) throw new Error(`keeper ${keeper.name} missing from its ensemble`);
  writeFileSync(join(home, 'zoo.cfg'), zooCfg(self, dataDir, ensemble));
  writeFileSync(join(dataDir, 'myid'), `${keeper.id}\n`);
  const logging = zookeeperLogging(jar);
  return {
    name: keeper.name,
    command: java,
    args: [
      '-Xmx256m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      ...logging.properties,
      '-cp',
      [home, jar, ...logging.classpath].join(':'),
      'org.apache.zookeeper.server.quorum.QuorumPeerMain',
      join(home, 'zoo.cfg'),
    ],
    cwd: home,
    logFile: join(home, 'zookeeper.log'),
  };
}

/**
 * ZooKeeper logs through SLF4J and its jar brings no binding, so a member said nothing at all: an
 * ensemble that took no request after a paused majority resumed (a `full` soak, seed 1740315153)
 * left no trace of why. Debian's slf4j-simple beside the jar, when it is there, writes the
 * member's warnings and errors, timed, to its log file (kept with the report).
 */
function zookeeperLogging(jar: string): { classpath: string[]; properties: string[] } {
  const simple = join(dirname(jar), 'slf4j-simple.jar');
  if (!existsSync(simple)) return { classpath: [], properties: [] };
  return {
    classpath: [simple],
    properties: [
      '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
      '-Dorg.slf4j.simpleLogger.showDateTime=true',
      '-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS',
    ],
  };
}
