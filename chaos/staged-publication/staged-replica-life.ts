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
    const names = await this.ask(context, this.replica, (client) =>
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
    await this.ask(context, this.writer, async (client) => {
      for (const [index, table] of this.tables.entries())
        await untilInactive(() =>
          client.command({ query: `SYSTEM DROP REPLICA '${names[index]}' FROM TABLE ${database}.${table}` }),
        );
    });
    await this.kill.heal(context, killed);
    const readonly = await this.ask(context, this.replica, (client) =>
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
    await this.ask(context, this.replica, async (client) => {
      for (const table of this.tables)
        await client.command({ query: `SYSTEM RESTORE REPLICA ${context.database}.${table}` });
    });
    window.healedAt ??= Date.now();
  }

  /** A statement to one replica directly, around its proxies. */
  private async ask<T>(
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
