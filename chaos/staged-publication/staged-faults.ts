import fc from 'fast-check';
import { setTimeout as delay } from 'node:timers/promises';
import type { ClusterDescription, ReplicaDescription } from '../../harness/cluster/index.ts';
import type { LoaderStepKind } from '../../sinks/index.ts';
import { harnessClient, queryValue } from '../../harness/cluster/index.ts';
import {
  type Fault,
  type FaultWindow,
  keeperLeaderKill,
  keeperLinkCut,
  type NemesisContext,
  replicaKill,
  resetPeerFault,
} from '../nemeses/index.ts';

/**
 * A fault of the staged scenarios, as data. Each takes one statement of one load (`aim`), applied
 * just before it is sent and healed once its outcome is known (`keeper-cut`: after `holdMs`, so
 * the loader's retries meet it too):
 * `publish-cut` — the publication's answer reset on the writer's client link (the server ran it);
 * `stage-cut` — a staging INSERT's answer reset likewise;
 * `sibling-kill` — the writer's sibling replica killed during the publication, restarted after;
 * `keeper-cut` — the writer's Keeper links cut during the publication;
 * `keeper-leader-kill` — the leader of a three-member Keeper ensemble killed during the publication;
 * `sibling-keeperless-start` — seed 004: the sibling killed and started again while its Keeper
 * links are cut, so its tables start read-only; the links heal `holdMs` after the publication;
 * `sibling-metadata-lost` — seed 004: the sibling's Keeper metadata of the production tables
 * removed while it is down (`SYSTEM DROP REPLICA` on the writer), so it starts read-only; healed
 * `holdMs` after the publication by `SYSTEM RESTORE REPLICA` on it, as an operator would;
 * `refused-publication` — no fault: the first table's staging does not meet the publication's
 * requirements, which the loader must report as the engine's refusal.
 */
export type StagedFaultSpec =
  | { readonly kind: 'publish-cut' }
  | { readonly kind: 'stage-cut' }
  | { readonly kind: 'sibling-kill' }
  | { readonly kind: 'keeper-cut'; readonly holdMs: number }
  | { readonly kind: 'keeper-leader-kill' }
  | { readonly kind: 'sibling-keeperless-start'; readonly holdMs: number }
  | { readonly kind: 'sibling-metadata-lost'; readonly holdMs: number }
  | { readonly kind: 'refused-publication'; readonly mismatch: StagingMismatch };

/**
 * How the first table's staging is set apart from production so that the engine must refuse its
 * publication (seed 002's requirements): a different partition key, ordering, or structure.
 */
export type StagingMismatch = 'partition-key' | 'ordering' | 'structure';

/** The statement a fault is aimed at: its kind, and which load and table (indexes into the run's). */
export interface FaultAim {
  readonly step: LoaderStepKind;
  readonly load: number;
  readonly table: number;
}

export const arbPublishCut: fc.Arbitrary<StagedFaultSpec> = fc.constant({ kind: 'publish-cut' as const });
export const arbStageCut: fc.Arbitrary<StagedFaultSpec> = fc.constant({ kind: 'stage-cut' as const });
export const arbSiblingKill: fc.Arbitrary<StagedFaultSpec> = fc.constant({ kind: 'sibling-kill' as const });
export const arbKeeperLeaderKill: fc.Arbitrary<StagedFaultSpec> = fc.constant({ kind: 'keeper-leader-kill' as const });
export const arbRefusedPublication: fc.Arbitrary<StagedFaultSpec> = fc
  .constantFrom<StagingMismatch>('partition-key', 'ordering', 'structure')
  .map((mismatch) => ({ kind: 'refused-publication' as const, mismatch }));
export const arbKeeperlessStart: fc.Arbitrary<StagedFaultSpec> = fc
  .integer({ min: 500, max: 3_000 })
  .map((holdMs) => ({ kind: 'sibling-keeperless-start' as const, holdMs }));
export const arbMetadataLost: fc.Arbitrary<StagedFaultSpec> = fc
  .integer({ min: 300, max: 2_000 })
  .map((holdMs) => ({ kind: 'sibling-metadata-lost' as const, holdMs }));
export const arbKeeperCut: fc.Arbitrary<StagedFaultSpec> = fc
  .integer({ min: 300, max: 2_000 })
  .map((holdMs) => ({ kind: 'keeper-cut' as const, holdMs }));

/** The statement kind each fault takes. */
export const aimedStep = (spec: StagedFaultSpec): LoaderStepKind =>
  spec.kind === 'stage-cut' ? 'stage-insert' : 'publish';

/** Faults that need a replicated table (a sibling to kill, Keeper on the publication's path). */
export const needsReplication = (spec: StagedFaultSpec): boolean =>
  spec.kind === 'sibling-kill' ||
  spec.kind === 'keeper-cut' ||
  spec.kind === 'keeper-leader-kill' ||
  spec.kind === 'sibling-keeperless-start' ||
  spec.kind === 'sibling-metadata-lost';

/** The fault that makes one spec real, on the writer (the replica the loader talks to) or its sibling. */
export function stagedFault(
  spec: StagedFaultSpec,
  writer: ReplicaDescription,
  sibling: ReplicaDescription | undefined,
  tables: readonly string[],
): Fault | undefined {
  switch (spec.kind) {
    case 'publish-cut':
    case 'stage-cut':
      return resetPeerFault([writer.proxies.client], 0);
    case 'sibling-kill':
      if (sibling === undefined) throw new Error('sibling-kill needs a second replica of the shard');
      return replicaKill(sibling.name);
    case 'keeper-cut':
      return keeperLinkCut(writer.proxies.keepers, `${writer.name}'s Keeper links`);
    case 'keeper-leader-kill':
      return keeperLeaderKill();
    case 'sibling-keeperless-start':
      if (sibling === undefined) throw new Error('sibling-keeperless-start needs a second replica of the shard');
      return new KeeperlessStart(sibling);
    case 'sibling-metadata-lost':
      if (sibling === undefined) throw new Error('sibling-metadata-lost needs a second replica of the shard');
      return new MetadataLost(writer, sibling, tables);
    case 'refused-publication':
      return undefined;
  }
}

/**
 * Seed 004's replica that starts while Keeper is unreachable: its Keeper links cut, the replica
 * killed and started again (each journaled by its own nemesis first), and seen read-only from the
 * start (`system.replicas.is_readonly`, read directly) — the window's `verified`. Healing
 * re-enables the links; the replica must then leave read-only and converge (the run's sync and
 * final read judge it).
 */
class KeeperlessStart implements Fault {
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
class MetadataLost implements Fault {
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

/** The shard the loads go to: the first, its first replica the writer. */
export function shardOf(description: ClusterDescription): readonly ReplicaDescription[] {
  return description.shards[0]?.replicas ?? [];
}

/** One line for the report. */
export function describeStagedFault(spec: StagedFaultSpec): string {
  switch (spec.kind) {
    case 'publish-cut':
      return "the publication's answer cut after the server ran it";
    case 'stage-cut':
      return "a staging INSERT's answer cut after the server ran it";
    case 'sibling-kill':
      return "the writer's sibling replica killed during the publication";
    case 'keeper-cut':
      return `the writer's Keeper links cut during the publication, ${spec.holdMs} ms`;
    case 'keeper-leader-kill':
      return "the Keeper ensemble's leader killed during the publication";
    case 'sibling-keeperless-start':
      return `the writer's sibling started while its Keeper links are cut (read-only from the start), healed ${spec.holdMs} ms after the publication`;
    case 'sibling-metadata-lost':
      return `the writer's sibling's Keeper metadata lost while it was down (read-only once started), SYSTEM RESTORE REPLICA ${spec.holdMs} ms after the publication`;
    case 'refused-publication':
      return `no fault: the first table's staging has a different ${spec.mismatch}, so the engine refuses its publication`;
  }
}
