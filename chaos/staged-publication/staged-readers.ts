import { setTimeout as delay } from 'node:timers/promises';
import { type ClusterCredentials, harnessClient, queryRows } from '../../harness/cluster/index.ts';
import type { LoadCount, ReadRecord } from '../../properties/checkers/index.ts';

export interface ReaderTarget {
  readonly replica: string;
  /** Through the replica's client proxy, as the loader's statements go: a fault on that link meets reads too. */
  readonly url: string;
}

export interface ReadersOptions {
  readonly targets: readonly ReaderTarget[];
  readonly database: string;
  readonly tables: readonly string[];
  readonly pauseMs: number;
  readonly credentials?: ClusterCredentials | undefined;
  /** The run's start: read times are relative to it. */
  readonly origin: number;
}

/** What the readers saw: every read that answered, and how many did not. */
export interface ReadLog {
  readonly reads: readonly ReadRecord[];
  readonly failed: number;
}

/** Every production table in one statement, so a read is one moment of one replica. */
export function readStatement(database: string, tables: readonly string[]): string {
  const union = tables.map((table) => `SELECT '${table}' AS t, load, id FROM ${database}.${table}`).join(' UNION ALL ');
  return `SELECT t AS table, load, count() AS rows, uniqExact(id) AS distinct FROM (${union}) GROUP BY table, load`;
}

/**
 * Analysts querying production while the loads are published: one loop per target, a read, a
 * pause, until stopped. A read that fails (a fault on its link, a replica killed) is counted,
 * never judged; what answered goes to the history with when it was sent and when it answered.
 */
export class Readers {
  private stopped = false;
  private readonly reads: ReadRecord[] = [];
  private failed = 0;
  private readonly loops: Promise<void>[];
  /** Per replica, when it was taken out of service for repair and when it was back (ms from the origin). */
  private readonly repairs = new Map<string, { from: number; to?: number }>();

  constructor(private readonly options: ReadersOptions) {
    this.loops = options.targets.map((target) => this.loop(target));
  }

  /** A replica that joined during the run: read from now on, like the others. */
  join(target: ReaderTarget): void {
    if (!this.stopped) this.loops.push(this.loop(target));
  }

  /** From now the replica is under repair: its reads are kept apart (`repairing`) until `repaired`. */
  repairing(replica: string): void {
    this.repairs.set(replica, { from: Date.now() - this.options.origin });
  }

  repaired(replica: string): void {
    const repair = this.repairs.get(replica);
    if (repair !== undefined) repair.to = Date.now() - this.options.origin;
  }

  /** Safe to call again: the loops end once, each read that was in flight awaited. */
  async stop(): Promise<ReadLog> {
    this.stopped = true;
    await Promise.all(this.loops);
    const underRepair = (read: ReadRecord) => {
      const repair = this.repairs.get(read.replica);
      return repair !== undefined && read.endedAt >= repair.from && read.startedAt <= (repair.to ?? Infinity);
    };
    const reads = this.reads.map((read) => (underRepair(read) ? { ...read, repairing: true } : read));
    return { reads: reads.sort((a, b) => a.startedAt - b.startedAt), failed: this.failed };
  }

  private async loop(target: ReaderTarget): Promise<void> {
    const { database, tables, origin } = this.options;
    const client = harnessClient(target.url, { timeoutMs: 5_000, credentials: this.options.credentials });
    const query = readStatement(database, tables);
    try {
      while (!this.stopped) {
        const startedAt = Date.now() - origin;
        try {
          const rows = await queryRows<{ table: string; load: number; rows: string; distinct: string }>(client, query);
          const counts: LoadCount[] = rows.map((row) => ({
            table: row.table,
            load: Number(row.load),
            rows: Number(row.rows),
            distinct: Number(row.distinct),
          }));
          this.reads.push({ replica: target.replica, startedAt, endedAt: Date.now() - origin, counts });
        } catch {
          this.failed += 1;
        }
        await delay(this.options.pauseMs);
      }
    } finally {
      await client.close();
    }
  }
}
