import { setTimeout as delay } from 'node:timers/promises';
import { type ClusterDescription, harnessClient, queryRows } from '../../harness/cluster/index.ts';
import type { SinkRead } from '../../properties/checkers/index.ts';

/** The pause between two reads: a few reads a second, little beside the sinks' own load on two cores. */
const READ_PAUSE_MS = 150;
/** A read that takes longer (a replica killed, its link slow) is counted failed, not waited for. */
const READ_TIMEOUT_MS = 3_000;

export interface ReadersTarget {
  readonly database: string;
  /** The run's table by base name: `<table>_rep` on a replica, `<table>_dist` through one. */
  readonly table: string;
  /** The replicas that hold the table (a single-host target: the first of each shard, and no `_dist`). */
  readonly replicas: readonly string[];
  readonly distributed: boolean;
  /**
   * Read with `select_sequential_consistency = 1`, where the sink's user inserts with a sequential
   * quorum: the settings under which ClickHouse promises a read sees every acknowledged INSERT.
   */
  readonly sequential: boolean;
}

/**
 * An analyst querying the sink's table while the run writes and heals: one loop, turn by turn a
 * replica's local table and `_dist` through a replica, until stopped. Reads go to each replica
 * directly, around the fault proxy: a fault's evidence is the bytes its links carried, and a
 * reader's bytes on the sink's links would be evidence that could come from something else.
 */
export class RunReaders {
  private stopped = false;
  private readonly reads: SinkRead[] = [];
  private readonly failed = { local: 0, dist: 0 };
  private readonly loop: Promise<void>;

  constructor(
    private readonly description: ClusterDescription,
    private readonly target: ReadersTarget,
  ) {
    this.loop = this.run();
  }

  /** Safe to call again: the loop ends once, the read in flight awaited. */
  async stop(): Promise<{ reads: SinkRead[]; failed: { local: number; dist: number } }> {
    this.stopped = true;
    await this.loop;
    return { reads: this.reads, failed: this.failed };
  }

  private async run(): Promise<void> {
    const { database, table, replicas, distributed, sequential } = this.target;
    const urls = new Map(
      this.description.shards.flatMap((shard) => shard.replicas.map((replica) => [replica.name, replica.direct_http])),
    );
    const turns = replicas.flatMap((replica) =>
      distributed
        ? [
            { replica, via: 'local' as const },
            { replica, via: 'dist' as const },
          ]
        : [{ replica, via: 'local' as const }],
    );
    const clients = new Map(
      replicas.map((replica) => [
        replica,
        harnessClient(urls.get(replica) ?? '', {
          timeoutMs: READ_TIMEOUT_MS,
          credentials: this.description.credentials,
        }),
      ]),
    );
    try {
      for (let turn = 0; !this.stopped && turns.length > 0; turn += 1) {
        const { replica, via } = turns[turn % turns.length] ?? { replica: '', via: 'local' };
        const client = clients.get(replica);
        if (client === undefined) break;
        const startedAt = Date.now();
        try {
          const rows = await queryRows<{ id: string }>(
            client,
            `SELECT id FROM ${database}.${table}${via === 'dist' ? '_dist' : '_rep'}`,
            sequential ? { select_sequential_consistency: '1' } : undefined,
          );
          this.reads.push({ via, replica, startedAt, endedAt: Date.now(), ids: rows.map((row) => row.id) });
        } catch {
          this.failed[via] += 1;
        }
        await delay(READ_PAUSE_MS);
      }
    } finally {
      await Promise.all([...clients.values()].map((client) => client.close()));
    }
  }
}
