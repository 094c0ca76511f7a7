import type { KeeperPlan } from '../topology.ts';

export interface ZooKeeperPorts {
  readonly client: number;
  readonly peer: number;
  readonly election: number;
}

/**
 * `zoo.cfg` for one member of a Debian ZooKeeper ensemble. tickTime 500 ms gives session
 * timeouts between 1 s and 10 s, so a paused Keeper is noticed quickly.
 */
export interface ZooKeeperMember {
  readonly keeper: KeeperPlan;
  readonly ports: ZooKeeperPorts;
}

export function zooCfg(
  self: ZooKeeperMember,
  dataDir: string,
  ensemble: readonly ZooKeeperMember[],
  host = '127.0.0.1',
): string {
  const own = self.ports;
  const lines = [
    'tickTime=500',
    'initLimit=20',
    'syncLimit=10',
    `dataDir=${dataDir}`,
    `clientPort=${own.client}`,
    `clientPortAddress=${host}`,
    'maxClientCnxns=0',
    'admin.enableServer=false',
    '4lw.commands.whitelist=*',
    'autopurge.purgeInterval=1',
  ];
  if (ensemble.length > 1) {
    for (const member of ensemble) {
      lines.push(`server.${member.keeper.id}=${host}:${member.ports.peer}:${member.ports.election}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
