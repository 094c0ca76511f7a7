import type { ClickHouseClient } from '@clickhouse/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessClient, type StartedLocalCluster } from '../../cluster/index.ts';
import { createShardedTable } from '../../clickhouse/index.ts';
import { startEmbeddedCluster } from '../../cluster/embedded/start-embedded.ts';
import { readReplicaCounts, type ReplicaTruth } from '../../oracle/replica-counts.ts';
import { deliveryDiff } from '../../../properties/checkers/delivery-diff.ts';
import { parseMessageId } from '../../../sinks/index.ts';
import { shardName } from '../../../sinks/domain/shard-name.ts';
import { RendezvousRouter } from '../../../sinks/routing/rendezvous-router.ts';
import { routingKeyFor } from '../../../sinks/routing/routing-key.ts';
import { DeterministicSource } from '../source/deterministic-source.ts';
import { columnsDdl, type SourceConfig } from '../source/source-config.ts';
import { FlowSupervisor } from '../supervisor.ts';

export const DATABASE = 'flow_it';
/** Nominal: every spec host is a node name the address book maps to its own proxy port. */
export const SPEC_PORT = 8123;

/**
 * The embedded 2x2 cluster as the flow integration tests use it: tables from a source's columns,
 * supervisors whose workers reach every node by name through its fault proxy, and ground truth
 * read on every replica by the chaos job's own reader (`readReplicaCounts`).
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

  /** Rows per message id on every replica, read as the chaos job's oracle reads them. */
  async counts(table: string): Promise<ReplicaTruth[]> {
    return readReplicaCounts(this.cluster.description, { localTable: `${DATABASE}.${table}` });
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
 * Every departure from exactly once on the right shard, one readable line each, judged by the
 * chaos job's own diff: empty when every replica holds each acknowledged message of its shard
 * once and nothing else.
 */
export function exactlyOnceProblems(
  replicas: readonly ReplicaTruth[],
  acknowledged: readonly string[],
  expectedShard: (id: string) => string,
): string[] {
  const diff = deliveryDiff({ replicas, acknowledged, expectedShards: (id) => [expectedShard(id)] });
  return [
    ...diff.lost.map((id) => `lost ${id}`),
    ...diff.duplicated.map((id) => `duplicated ${id} ×${diff.present.get(id)}`),
    ...diff.unacknowledged.map((id) => `unacknowledged ${id}`),
    ...diff.misplaced.map(({ id, replica, expected }) => `misplaced ${id} on ${replica} (expected ${expected})`),
    ...diff.diverged.map(({ replica, ids }) => `diverged ${replica}: ${ids.join(', ')}`),
  ];
}
