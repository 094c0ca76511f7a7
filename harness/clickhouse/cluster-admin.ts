import type { ClickHouseClient } from '@clickhouse/client';
import {
  type ClusterCredentials,
  type ClusterDescription,
  harnessClient,
  type ReplicaDescription,
} from '../cluster/index.ts';

/** One replica with a harness client that reaches it directly (`direct_http`, never through its fault proxy). */
export interface AdminReplica {
  readonly shard: string;
  readonly replica: ReplicaDescription;
  readonly client: ClickHouseClient;
}

export interface ReplicaSelection {
  /** Only these replicas, by name; every replica of the cluster when absent. */
  readonly only?: readonly string[] | undefined;
  /** Each request's limit; the harness client's default when absent. */
  readonly timeoutMs?: number;
}

export type AdminClientFactory = (
  url: string,
  options: { readonly timeoutMs?: number; readonly credentials?: ClusterCredentials | undefined },
) => ClickHouseClient;

/**
 * Statements the harness runs on the replicas of a cluster (DDL, settling, the oracle's reads,
 * dumps), with the cluster's credentials, in the description's order. Every client it opens is
 * closed on every path: the work's failure, or a client that could not be made half-way.
 */
export class ClusterAdmin {
  constructor(
    private readonly description: ClusterDescription,
    private readonly openClient: AdminClientFactory = harnessClient,
  ) {}

  /** `work` over every selected replica at once, each with its own client, all closed after it. */
  async withReplicas<T>(
    work: (replicas: readonly AdminReplica[]) => Promise<T>,
    selection: ReplicaSelection = {},
  ): Promise<T> {
    const opened: AdminReplica[] = [];
    try {
      for (const { shard, replica } of this.selected(selection))
        opened.push({ shard, replica, client: this.open(replica, selection) });
      return await work(opened);
    } finally {
      await Promise.allSettled(opened.map(({ client }) => client.close()));
    }
  }

  /** `work` on each selected replica in turn, with a client of its own closed before the next. */
  async eachReplica<T>(work: (replica: AdminReplica) => Promise<T>, selection: ReplicaSelection = {}): Promise<T[]> {
    const results: T[] = [];
    for (const { shard, replica } of this.selected(selection)) {
      const client = this.open(replica, selection);
      try {
        results.push(await work({ shard, replica, client }));
      } finally {
        await client.close().catch(() => undefined);
      }
    }
    return results;
  }

  /** One statement on every selected replica at once (the embedded engine has no ON CLUSTER). */
  onEveryReplica(query: string, selection: ReplicaSelection = {}): Promise<void> {
    return this.withReplicas(async (replicas) => {
      await Promise.all(replicas.map(({ client }) => client.command({ query })));
    }, selection);
  }

  private selected(selection: ReplicaSelection): { shard: string; replica: ReplicaDescription }[] {
    return this.description.shards
      .flatMap((shard) => shard.replicas.map((replica) => ({ shard: shard.name, replica })))
      .filter(({ replica }) => selection.only === undefined || selection.only.includes(replica.name));
  }

  private open(replica: ReplicaDescription, selection: ReplicaSelection): ClickHouseClient {
    return this.openClient(replica.direct_http, {
      ...(selection.timeoutMs === undefined ? {} : { timeoutMs: selection.timeoutMs }),
      credentials: this.description.credentials,
    });
  }
}
