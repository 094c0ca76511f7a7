import { dirname, join } from 'node:path';
import type { ClusterState, NodeState } from './cluster-state.ts';
import type { NodeAddressing } from './config/clickhouse-config.ts';
import { planTopology, type ReplicaPlan } from './topology.ts';

/** The users file beside a local node's config: `default` and one user per setting profile. */
export const usersFile = (node: NodeState): string => join(dirname(node.configPath), 'users.xml');

/**
 * The part of a node's addressing both local backends share: its ports, its Keeper links
 * (through its own proxies when they are on), every replica's native port and its directories.
 * Listen hosts and the interserver endpoint are each backend's own.
 */
export function localNodeAddressing(
  state: ClusterState,
  node: NodeState,
  own: Pick<NodeAddressing, 'listenHosts' | 'interserver'>,
): { replica: ReplicaPlan; addressing: NodeAddressing } {
  const plan = planTopology(state.topology);
  const replica = plan.replicas.find((candidate) => candidate.name === node.name);
  if (replica === undefined) throw new Error(`node ${node.name} is not in the topology`);
  const addressing: NodeAddressing = {
    ...own,
    httpPort: node.httpPort,
    tcpPort: node.tcpPort,
    keepers: state.keepers.map((keeper) => ({
      host: '127.0.0.1',
      port: state.proxiesEnabled ? (node.proxyPorts.keepers[keeper.name] ?? keeper.clientPort) : keeper.clientPort,
    })),
    remoteShards: plan.shards.map((shard) =>
      shard.replicas.map((member) => ({
        host: '127.0.0.1',
        port: state.nodes.find((peer) => peer.name === member.name)?.tcpPort ?? 0,
      })),
    ),
    paths: {
      data: `${node.dataDir}/`,
      tmp: `${node.dataDir}/tmp/`,
      userFiles: `${node.dataDir}/user_files/`,
      log: join(node.logDir, 'clickhouse.log'),
      errorLog: join(node.logDir, 'clickhouse.err.log'),
      users: usersFile(node),
    },
  };
  return { replica, addressing };
}
