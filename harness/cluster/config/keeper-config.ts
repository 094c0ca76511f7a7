import type { KeeperPlan } from '../topology.ts';
import { toXml } from './xml.ts';

export interface KeeperAddressing {
  readonly listenHost: string;
  readonly clientPort: number;
  /** Raft endpoints of every member, in id order, as the members reach each other. */
  readonly raft: readonly { readonly id: number; readonly host: string; readonly port: number }[];
  readonly paths: { readonly log: string; readonly errorLog: string; readonly coordination: string };
}

/** ClickHouse Keeper config for the binary and docker backends (the embedded engine has no Keeper). */
export function clickhouseKeeperConfig(keeper: KeeperPlan, address: KeeperAddressing): string {
  return toXml('clickhouse', {
    logger: { level: 'information', log: address.paths.log, errorlog: address.paths.errorLog, console: false },
    listen_host: address.listenHost,
    keeper_server: {
      tcp_port: address.clientPort,
      server_id: keeper.id,
      log_storage_path: `${address.paths.coordination}/log`,
      snapshot_storage_path: `${address.paths.coordination}/snapshots`,
      coordination_settings: { operation_timeout_ms: 3000, session_timeout_ms: 6000, raft_logs_level: 'warning' },
      raft_configuration: {
        server: address.raft.map((member) => ({ id: member.id, hostname: member.host, port: member.port })),
      },
    },
  });
}
