import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from '../base/index.ts';
import type { ProcessRecord } from './process/local-process.ts';
import type { ProxyServerKind } from './real-toxiproxy/real-toxiproxy.ts';
import type { TopologySpec } from './topology.ts';

export type BackendName = 'embedded' | 'docker' | 'binary';

export interface KeeperState {
  readonly name: string;
  readonly id: number;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly electionPort: number;
  process?: ProcessRecord;
}

/**
 * An Apache Kafka broker (KRaft, controller and broker in one process). Each of its clients (every
 * replica, and the harness's producer) has a listener of its own, advertised at that client's
 * proxy, so a fault can cut one replica's link to one broker.
 */
export interface KafkaBrokerState {
  /** `kf1`.. */
  readonly name: string;
  /** 1-based: the broker's `node.id`. */
  readonly id: number;
  readonly controllerPort: number;
  /** The broker-to-broker listener (not proxied). */
  readonly internalPort: number;
  /** Per client (a replica's name, or `producer`): the listener it reaches, and its proxy's listen port. */
  readonly clients: Readonly<Record<string, { readonly listener: number; readonly proxy: number }>>;
  readonly configPath: string;
  readonly dataDir: string;
  readonly logFile: string;
  process?: ProcessRecord;
}

export interface NodeState {
  readonly name: string;
  readonly shard: string;
  readonly httpPort: number;
  readonly tcpPort: number;
  /** Where the node serves replication: its HTTP port on the second loopback address (embedded) or a port of its own. */
  readonly interserverPort: number;
  /** Proxy listen ports; equal to the direct ports' targets when proxies are off. */
  readonly proxyPorts: {
    readonly client: number;
    readonly interserver: number;
    readonly keepers: Readonly<Record<string, number>>;
  };
  /** The client proxy's listen address (`127.10.<shard>.<replica>`); the port is shared by all nodes. */
  readonly clientHost: string;
  readonly configPath: string;
  readonly dataDir: string;
  readonly logDir: string;
  process?: ProcessRecord;
}

/** The on-disk record of a running cluster: what `status`, `down` and the reaper read. */
export interface ClusterState {
  readonly version: 1;
  readonly runId: string;
  readonly backend: BackendName;
  readonly dir: string;
  readonly createdAt: string;
  /** The process whose death makes this cluster a leftover; null once `cluster up` handed it to the user. */
  owner: { readonly pid: number; readonly startTime: string } | null;
  readonly topology: TopologySpec;
  readonly proxiesEnabled: boolean;
  toxiproxy: {
    readonly url: string;
    readonly port: number;
    /** Which server a local backend started (absent in state files written before the choice existed: ours). */
    readonly server?: ProxyServerKind;
    process?: ProcessRecord;
  } | null;
  readonly keepers: KeeperState[];
  readonly nodes: NodeState[];
  /** Absent in state files of clusters started without brokers (and before brokers existed). */
  readonly kafka?: KafkaBrokerState[];
  readonly ports: readonly number[];
}

export const STATE_FILE = 'cluster.json';

export function writeClusterState(state: ClusterState): void {
  const path = join(state.dir, STATE_FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

export function readClusterState(dir: string): ClusterState {
  const path = join(dir, STATE_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HarnessError(
      'CLUSTER_NOT_FOUND',
      `no cluster state at ${path}; start one with \`npm run cluster -- up\``,
      { cause: error },
    );
  }
  try {
    const state = JSON.parse(text) as ClusterState;
    if (state.version !== 1) throw new Error(`unknown state version ${String(state.version)}`);
    return state;
  } catch (error) {
    throw new HarnessError(
      'CLUSTER_STATE_CORRUPT',
      `cluster state ${path} is unreadable (${(error as Error).message}); remove ${dir} by hand`,
      { cause: error },
    );
  }
}

export function stateProcesses(state: ClusterState): ProcessRecord[] {
  const records: (ProcessRecord | undefined)[] = [
    ...state.nodes.map((node) => node.process),
    ...state.keepers.map((keeper) => keeper.process),
    ...(state.kafka ?? []).map((broker) => broker.process),
    state.toxiproxy?.process,
  ];
  return records.filter((record): record is ProcessRecord => record !== undefined);
}
