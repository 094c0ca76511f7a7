import type { ClickHouseClient } from '@clickhouse/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessClient, queryRows } from '../../clickhouse/client.ts';
import { createShardedTable } from '../../clickhouse/ddl.ts';
import { startEmbeddedCluster } from '../../cluster/embedded/start-embedded.ts';
import type { StartedLocalCluster } from '../../cluster/local-cluster.ts';
import { parseMessageId } from '../../../sinks/domain/message-id.ts';
import { shardName } from '../../../sinks/domain/shard-name.ts';
import { RendezvousRouter } from '../../../sinks/routing/rendezvous-router.ts';
import { routingKeyFor } from '../../../sinks/routing/routing-key.ts';
import { DeterministicSource } from '../source/deterministic-source.ts';
import { columnsDdl, type SourceConfig } from '../source/source-config.ts';
import { FlowSupervisor } from '../supervisor.ts';

export const DATABASE = 'flow_it';
/** Nominal: every spec host is a node name the address book maps to its own proxy port. */
export const SPEC_PORT = 8123;

/** Row counts per message id, per replica (read directly, not through a fault proxy). */
export type ReplicaCounts = ReadonlyMap<string, ReadonlyMap<string, number>>;

/**
 * The embedded 2x2 cluster as the flow integration tests use it: tables from a source's columns,
 * supervisors whose workers reach every node by name through its fault proxy, and ground truth
 * read on every replica after `SYSTEM SYNC REPLICA`.
 */
export class FlowTestCluster {
  private readonly runDirs: string[] = [];

  private constructor(
    readonly cluster: StartedLocalCluster,
    private readonly direct: ReadonlyMap<string, ClickHouseClient>,
  ) {}

  static async start(): Promise<FlowTestCluster> {
    const cluster = await startEmbeddedCluster({ topology: { shards: 2, replicas: 2, keepers: 1 } });
    const direct = new Map(
      cluster.description.shards.flatMap((shard) =>
        shard.replicas.map((replica) => [replica.name, harnessClient(replica.direct_http)] as const),
      ),
    );
    return new FlowTestCluster(cluster, direct);
  }

  /** Shard name → its node names, as a `shard_hosts` value. */
  get shardHosts(): Record<string, string[]> {
    return Object.fromEntries(
      this.cluster.description.shards.map((shard) => [shard.name, shard.replicas.map((replica) => replica.name)]),
    );
  }

  get endpoints(): Record<string, string> {
    return Object.fromEntries(
      this.cluster.description.shards.flatMap((shard) => shard.replicas.map((replica) => [replica.name, replica.http])),
    );
  }

  /** A supervisor over a fresh run directory (removed by `down`). */
  supervisor(source: SourceConfig, label: string): FlowSupervisor {
    const dir = mkdtempSync(join(tmpdir(), `flow-it-${label}-`));
    this.runDirs.push(dir);
    return new FlowSupervisor({ dir, source, endpoints: this.endpoints });
  }

  /** `<name>_rep` (ReplicatedMergeTree) on every node and `<name>_dist` over them; returns the local table's name. */
  async createTable(name: string, source: SourceConfig, settings?: string): Promise<string> {
    await createShardedTable([...this.direct.values()], {
      database: DATABASE,
      name,
      columns: columnsDdl(source),
      orderBy: 'id',
      settings,
    });
    return `${name}_rep`;
  }

  async counts(table: string): Promise<ReplicaCounts> {
    const result = new Map<string, Map<string, number>>();
    for (const [node, client] of this.direct) {
      await client.command({
        query: `SYSTEM SYNC REPLICA ${DATABASE}.${table}`,
        clickhouse_settings: { receive_timeout: 60 },
      });
      const rows = await queryRows<{ id: string; n: string }>(
        client,
        `SELECT id, count() AS n FROM ${DATABASE}.${table} GROUP BY id`,
      );
      result.set(node, new Map(rows.map((row) => [row.id, Number(row.n)])));
    }
    return result;
  }

  shardOfNode(node: string): string {
    const shard = this.cluster.description.shards.find((candidate) =>
      candidate.replicas.some((replica) => replica.name === node),
    );
    if (!shard) throw new Error(`no node ${node}`);
    return shard.name;
  }

  async down(): Promise<void> {
    await Promise.all([...this.direct.values()].map((client) => client.close()));
    await this.cluster.down();
    for (const dir of this.runDirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** The shard rendezvous hashing names for a message of `source` (its row regenerated from the id). */
export function rendezvousShard(
  source: SourceConfig,
  id: string,
  shards: readonly string[],
  keyColumns: readonly string[],
): string {
  const { partition, seq } = parseMessageId(id);
  const message = new DeterministicSource(source, partition).message(seq);
  return new RendezvousRouter(shards.map(shardName)).route(routingKeyFor(message.id, message.row, keyColumns));
}

/**
 * Where exactly-once puts things: for every replica, the ids it must hold exactly once. An id
 * held twice, held on the wrong shard, missing, or not acknowledged at all is listed in the diff.
 */
export function exactlyOnceDiff(
  counts: ReplicaCounts,
  expectedShardOf: (id: string) => string,
  shardOfNode: (node: string) => string,
  acknowledged: readonly string[],
) {
  const problems: string[] = [];
  for (const [node, ids] of counts) {
    const shard = shardOfNode(node);
    const expected = new Set(acknowledged.filter((id) => expectedShardOf(id) === shard));
    for (const id of expected) if (ids.get(id) !== 1) problems.push(`${node}: ${id} ×${ids.get(id) ?? 0}`);
    for (const [id, n] of ids) if (!expected.has(id)) problems.push(`${node}: unexpected ${id} ×${n}`);
  }
  return problems;
}
