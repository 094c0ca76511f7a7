import { setTimeout as delay } from 'node:timers/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import { harnessClient, queryRows, type ReplicaDescription } from '../../harness/cluster/index.ts';
import type { ServerWindow, WindowHit } from '../../harness/flow/history/index.ts';
import type { Fault, FaultWindow, NemesisContext } from './fault.ts';
import { refusedByFaultProxy } from './fault-proxy-client.ts';
import type { FaultUndo } from './run-undo.ts';

/** Regular: sleeps 5 s after the new part is renamed into the table (PreActive) and before its Keeper commit. */
const DELAY_COMMIT = 'rmt_delay_commit_part';
/** Pauseable once: where the commit's recovery asks Keeper whether a commit that failed on a lost session landed. */
const RETRY_PAUSE = 'replicated_merge_tree_insert_retry_pause';
const FAILPOINTS = [DELAY_COMMIT, RETRY_PAUSE] as const;

/** The windows this fault acts in, in the order the INSERT reaches them. */
const WINDOWS: readonly ServerWindow[] = ['part-written', 'commit-unconfirmed'];

/** Measured on 26.7: a small INSERT's part is PreActive 0.07-0.75 s after the request, paused 4.9-5.5 s later. */
const PART_WAIT_MS = 8_000;
const PAUSE_WAIT_MS = 10_000;
const POLL_MS = 50;
/** The replica's tables must be writable again after the heal before the sink hears its answer. */
const WRITABLE_WAIT_MS = 30_000;

/**
 * ClickHouse's UNKNOWN_STATUS_OF_INSERT with the part written and its Keeper commit lost
 * (`FAILPOINTS.md`): with the commit held back (`rmt_delay_commit_part`), the aimed INSERT's
 * replica is cut from Keeper once its part is in the table, so the commit fails on a lost session
 * and never reaches Keeper; the INSERT is then held where it tries to find out
 * (`replicated_merge_tree_insert_retry_pause`) and let go, and the server answers 319 ("Data was
 * written locally") after its own Keeper retries — the sink's user carries few of them
 * (`keeper_retries_short`). The heal restores the links and restarts the replica's tables, which
 * drops the part Keeper never got, as ClickHouse's own part check does about 300 s later.
 * Each window is recorded with the INSERTs the replica was running when it was reached.
 */
export class CommitKeeperCutFault implements Fault {
  readonly type = 'server_window';
  readonly effect = 'error';
  private undo: FaultUndo | undefined;
  private driving: Promise<WindowHit> | undefined;

  constructor(private readonly replica: ReplicaDescription) {}

  get targets(): readonly string[] {
    return [this.replica.name, ...this.replica.proxies.keepers];
  }

  async apply(context: NemesisContext): Promise<FaultWindow> {
    const appliedAt = Date.now();
    const own = (this.undo = context.undo.fault());
    const lacking = await this.direct(context, 5_000, (client) => missingFailpoints(client));
    if (lacking.length > 0) {
      const missed = `the engine lacks the failpoint ${lacking.join(', ')} (system.fail_points)`;
      context.log.warn({ replica: this.replica.name, lacking }, 'server window not armed: failpoint missing');
      this.driving = Promise.resolve({ replica: this.replica.name, hits: [], missed });
    } else {
      await own.applying(() =>
        this.direct(context, 5_000, async (client) => {
          for (const failpoint of FAILPOINTS)
            await own.do({ kind: 'failpoint', replica: this.replica.name, failpoint }, () =>
              client.command({ query: `SYSTEM ENABLE FAILPOINT ${failpoint}` }),
            );
        }),
      );
      // Runs while the aimed INSERT does: the executor lets it go right after apply.
      this.driving = this.drive(context, own);
    }
    return {
      type: this.type,
      description: this.toString(),
      targets: this.targets,
      appliedAt,
      serverCode: '319',
      windows: WINDOWS,
    };
  }

  async heal(context: NemesisContext, window: FaultWindow): Promise<void> {
    window.windowHit ??= await this.driving;
    await this.undo?.undo();
    window.healedAt ??= Date.now();
    if ((window.windowHit?.hits.length ?? 0) > 0) await this.restartTables(context);
  }

  toString(): string {
    return `commit_keeper_cut(${this.replica.name})`;
  }

  /** Reaches each window in turn, acting in the first; bounded throughout, it never waits on the server unbounded. */
  private async drive(context: NemesisContext, own: FaultUndo): Promise<WindowHit> {
    const hits: WindowHit['hits'][number][] = [];
    const result = (missed?: string): WindowHit => ({
      replica: this.replica.name,
      hits,
      ...(missed === undefined ? {} : { missed }),
    });
    const client = this.client(context, PAUSE_WAIT_MS);
    try {
      const written = await pollFor(() => preActiveInserts(client, context.database), PART_WAIT_MS);
      if (written === undefined) return result(`no part of the run's tables was PreActive within ${PART_WAIT_MS} ms`);
      hits.push({ window: 'part-written', queryIds: written, at: Date.now() });
      for (const proxy of this.replica.proxies.keepers)
        await own.do(
          { kind: 'proxy-disabled', proxy },
          () => context.proxies.setEnabled(proxy, false),
          refusedByFaultProxy,
        );
      // Returns once an INSERT is held at the pause (the failpoint is ours and still enabled, so it cannot return early).
      const paused = await client
        .command({ query: `SYSTEM WAIT FAILPOINT ${RETRY_PAUSE} PAUSE` })
        .then(() => true)
        .catch(() => false);
      if (!paused) return result(`no INSERT paused at ${RETRY_PAUSE} within ${PAUSE_WAIT_MS} ms`);
      hits.push({
        window: 'commit-unconfirmed',
        queryIds: await runningInserts(client, context.database),
        at: Date.now(),
      });
      return result();
    } catch (error) {
      return result(`the replica stopped answering: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      // Later INSERTs must not sleep, and the held one must go on to answer; the undo repeats these.
      for (const failpoint of FAILPOINTS)
        await client.command({ query: `SYSTEM DISABLE FAILPOINT ${failpoint}` }).catch(() => undefined);
      await client.close();
    }
  }

  /** Re-creates the replica's tables from Keeper, dropping the part Keeper never got, and waits until they are writable. */
  private async restartTables(context: NemesisContext): Promise<void> {
    await this.direct(context, WRITABLE_WAIT_MS, async (client) => {
      const tables = await replicaTables(client, context.database);
      await pollFor(
        async () => ((await readOnlyTables(client, context.database)) === 0 ? true : undefined),
        WRITABLE_WAIT_MS,
      );
      for (const table of tables)
        await client.command({ query: `SYSTEM RESTART REPLICA \`${context.database}\`.\`${table}\`` });
      await pollFor(
        async () => ((await readOnlyTables(client, context.database)) === 0 ? true : undefined),
        WRITABLE_WAIT_MS,
      );
    });
  }

  private client(context: NemesisContext, timeoutMs: number): ClickHouseClient {
    return harnessClient(this.replica.direct_http, { timeoutMs, credentials: context.cluster.description.credentials });
  }

  private async direct<T>(
    context: NemesisContext,
    timeoutMs: number,
    work: (client: ClickHouseClient) => Promise<T>,
  ): Promise<T> {
    const client = this.client(context, timeoutMs);
    try {
      return await work(client);
    } finally {
      await client.close();
    }
  }
}

async function missingFailpoints(client: ClickHouseClient): Promise<string[]> {
  const present = await queryRows<{ name: string }>(
    client,
    `SELECT name FROM system.fail_points WHERE name IN (${FAILPOINTS.map((name) => `'${name}'`).join(', ')})`,
  );
  return FAILPOINTS.filter((name) => !present.some((row) => row.name === name));
}

/** Polls `probe` until it gives a value, or `undefined` once `ms` passed. */
async function pollFor<T>(probe: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() >= until) return value;
    await delay(POLL_MS);
  }
}

/** The INSERTs into the run's database the replica runs while one of its parts is renamed in but uncommitted, if one is. */
async function preActiveInserts(client: ClickHouseClient, database: string): Promise<string[] | undefined> {
  const parts = await queryRows<{ name: string }>(
    client,
    `SELECT name FROM system.parts WHERE database = '${database}' AND _state = 'PreActive'`,
  );
  return parts.length === 0 ? undefined : runningInserts(client, database);
}

async function runningInserts(client: ClickHouseClient, database: string): Promise<string[]> {
  const rows = await queryRows<{ query_id: string }>(
    client,
    `SELECT query_id FROM system.processes WHERE query_kind = 'Insert' AND position(query, '${database}') > 0`,
  );
  return rows.map((row) => row.query_id);
}

async function replicaTables(client: ClickHouseClient, database: string): Promise<string[]> {
  const rows = await queryRows<{ table: string }>(
    client,
    `SELECT table FROM system.replicas WHERE database = '${database}'`,
  );
  return rows.map((row) => row.table);
}

async function readOnlyTables(client: ClickHouseClient, database: string): Promise<number> {
  const rows = await queryRows<{ n: string }>(
    client,
    `SELECT count() AS n FROM system.replicas WHERE database = '${database}' AND is_readonly`,
  );
  return Number(rows[0]?.n ?? 0);
}

export const commitKeeperCut = (replica: ReplicaDescription) => new CommitKeeperCutFault(replica);
