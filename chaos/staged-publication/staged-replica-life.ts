import { setTimeout as delay } from 'node:timers/promises';
import { harnessClient, queryValue, type ReplicaDescription } from '../../harness/cluster/index.ts';
import { type Fault, type FaultWindow, keeperLinkCut, type NemesisContext, replicaKill } from '../nemeses/index.ts';

// Seed 004's replica life, as faults of the staged scenarios (`staged-faults.ts` chooses them).

/**
 * Seed 004's replica that starts while Keeper is unreachable: its Keeper links cut, the replica
 * killed and started again (each journaled by its own nemesis first), and seen read-only from the
 * start (`system.replicas.is_readonly`, read directly) — the window's `verified`. Healing
 * re-enables the links; the replica must then leave read-only and converge (the run's sync and
 * final read judge it).
 */
export class KeeperlessStart implements Fault {
  readonly type = 'keeper_link_cut';
  readonly effect = 'blocked';
  private readonly cut: Fault;
  private readonly kill: Fault;
  private cutWindow: FaultWindow | undefined;

  constructor(private readonly replica: ReplicaDescription) {
    this.cut = keeperLinkCut(replica.proxies.keepers, `${replica.name}'s Keeper links`);
    this.kill = replicaKill(replica.name);
  }

  get targets(): readonly string[] {
    return [this.replica.name, ...this.replica.proxies.keepers];
  }

  async apply(context: NemesisContext): Promise<FaultWindow> {
    this.cutWindow = await this.cut.apply(context);
    const killed = await this.kill.apply(context);
    // Started again with its Keeper links still cut.
    await this.kill.heal(context, killed);
    const client = harnessClient(this.replica.direct_http, {
      timeoutMs: 30_000,
      credentials: context.cluster.description.credentials,
    });
    try {
      const readonly = await queryValue<string>(
        client,
        `SELECT countIf(is_readonly) FROM system.replicas WHERE database = '${context.database}'`,
      );
      return {
        type: this.type,
        description: this.toString(),
        targets: this.targets,
        appliedAt: this.cutWindow.appliedAt,
        verified: killed.verified === true && Number(readonly) > 0,
      };
    } finally {
      await client.close();
    }
  }

  async heal(context: NemesisContext, window: FaultWindow): Promise<void> {
    if (this.cutWindow !== undefined) await this.cut.heal(context, this.cutWindow);
    window.healedAt ??= Date.now();
  }

  toString(): string {
    return `start(${this.replica.name}) with its Keeper links cut`;
  }
}

/**
 * Seed 004's replica whose Keeper metadata is lost: the sibling killed (journaled by its nemesis
 * first), its replica of each production table dropped from Keeper by the writer (`SYSTEM DROP
 * REPLICA … FROM TABLE`, refused for a replica that is alive), the sibling started again and seen
 * read-only (`verified`). The heal is the operator's repair: `SYSTEM RESTORE REPLICA` of each
 * table on the sibling, which registers it again and fetches what it lacks; the run's sync and
 * final read judge whether it converged. Only the run's own tables are touched.
 */
export class MetadataLost implements Fault {
  readonly type = 'replica_kill';
  readonly effect = 'blocked';
  private readonly kill: Fault;

  constructor(
    private readonly writer: ReplicaDescription,
    private readonly replica: ReplicaDescription,
    private readonly tables: readonly string[],
  ) {
    this.kill = replicaKill(replica.name);
  }

  get targets(): readonly string[] {
    return [this.replica.name];
  }

  async apply(context: NemesisContext): Promise<FaultWindow> {
    const appliedAt = Date.now();
    const { database } = context;
    const names = await directly(context, this.replica, (client) =>
      Promise.all(
        this.tables.map((table) =>
          queryValue<string>(
            client,
            `SELECT replica_name FROM system.replicas WHERE database = '${database}' AND table = '${table}'`,
          ),
        ),
      ),
    );
    const killed = await this.kill.apply(context);
    await directly(context, this.writer, async (client) => {
      for (const [index, table] of this.tables.entries())
        await untilInactive(() =>
          client.command({ query: `SYSTEM DROP REPLICA '${names[index]}' FROM TABLE ${database}.${table}` }),
        );
    });
    await this.kill.heal(context, killed);
    const readonly = await directly(context, this.replica, (client) =>
      queryValue<string>(
        client,
        `SELECT countIf(is_readonly) FROM system.replicas WHERE database = '${database}' AND table IN (${this.tables.map((table) => `'${table}'`).join(', ')})`,
      ),
    );
    return {
      type: this.type,
      description: this.toString(),
      targets: this.targets,
      appliedAt,
      verified: killed.verified === true && Number(readonly) === this.tables.length,
    };
  }

  async heal(context: NemesisContext, window: FaultWindow): Promise<void> {
    await directly(context, this.replica, async (client) => {
      for (const table of this.tables)
        await client.command({ query: `SYSTEM RESTORE REPLICA ${context.database}.${table}` });
    });
    window.healedAt ??= Date.now();
  }

  toString(): string {
    return `lose(${this.replica.name}'s Keeper metadata), then restore it`;
  }
}

/** How long a killed replica may still count as active in Keeper: its session's timeout, with room. */
const INACTIVE_WITHIN_MS = 30_000;

/**
 * Runs a `SYSTEM DROP REPLICA` until Keeper no longer holds the killed replica's session
 * (TABLE_WAS_NOT_DROPPED, 305, "because it's active": measured about 6-10 s after the kill).
 */
async function untilInactive(drop: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + INACTIVE_WITHIN_MS;
  for (;;) {
    try {
      await drop();
      return;
    } catch (error) {
      if (String((error as { code?: unknown }).code) !== '305' || Date.now() >= deadline) throw error;
      await delay(500);
    }
  }
}

/**
 * Seed 004's new replica: CREATE TABLE of each production table on a node that held none, with
 * the shard's Keeper path, "adds a new replica" that copies what the others hold. `make` creates
 * the run's database there (journaled first, so the run's undo drops it and with it the replica)
 * and the tables. `verified`: the shard had published rows when the replica joined, so it had
 * something to copy. Nothing heals: the replica stays, and must converge by the run's end (its
 * sync, the final read, and the parts it fetched — `fetchedParts` — judge it).
 */
export class ReplicaJoins implements Fault {
  readonly type = 'replica_join';
  readonly effect = 'blocked';

  constructor(
    private readonly writer: ReplicaDescription,
    private readonly joiner: ReplicaDescription,
    private readonly tables: readonly string[],
    private readonly make: (context: NemesisContext) => Promise<void>,
  ) {}

  get targets(): readonly string[] {
    return [this.joiner.name];
  }

  async apply(context: NemesisContext): Promise<FaultWindow> {
    const appliedAt = Date.now();
    const published = await directly(context, this.writer, (client) =>
      queryValue<string>(
        client,
        `SELECT sum(rows) FROM (${this.tables.map((table) => `SELECT count() AS rows FROM ${context.database}.${table}`).join(' UNION ALL ')})`,
      ),
    );
    await this.make(context);
    return {
      type: this.type,
      description: this.toString(),
      targets: this.targets,
      appliedAt,
      verified: Number(published) > 0,
    };
  }

  async heal(_context: NemesisContext, window: FaultWindow): Promise<void> {
    window.healedAt ??= Date.now();
  }

  toString(): string {
    return `join(${this.joiner.name} as a new replica of ${this.writer.name}'s production tables)`;
  }
}

/** The parts a replica fetched from its siblings into the run's production tables, by its own part log. */
export async function fetchedParts(
  context: NemesisContext,
  replica: ReplicaDescription,
  tables: readonly string[],
): Promise<number> {
  return directly(context, replica, async (client) => {
    await client.command({ query: 'SYSTEM FLUSH LOGS' });
    const count = await queryValue<string>(
      client,
      `SELECT count() FROM system.part_log WHERE event_type = 'DownloadPart' AND database = '${context.database}' AND table IN (${tables.map((table) => `'${table}'`).join(', ')})`,
    );
    return Number(count);
  });
}

/** A statement to one replica directly, around its proxies. */
async function directly<T>(
  context: NemesisContext,
  replica: ReplicaDescription,
  work: (client: ReturnType<typeof harnessClient>) => Promise<T>,
): Promise<T> {
  const client = harnessClient(replica.direct_http, {
    timeoutMs: 60_000,
    credentials: context.cluster.description.credentials,
  });
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
