import fc from 'fast-check';
import type { ClusterDescription, ReplicaDescription } from '../../harness/cluster/index.ts';
import { type LoaderStepKind, PUBLISH_OPERATIONS, type PublishOperation } from '../../sinks/index.ts';
import {
  type Fault,
  keeperLeaderKill,
  keeperLinkCut,
  type NemesisContext,
  replicaKill,
  resetPeerFault,
} from '../nemeses/index.ts';
import { KeeperlessStart, MetadataLost, ReplicaJoins } from './staged-replica-life.ts';

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
 * `replica-joins` — seed 004: a new replica of the production tables made on a node that held
 * none (CREATE TABLE with the shard's Keeper path) just before a publication, so it copies the
 * loads already published while the next is switched;
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
  | { readonly kind: 'replica-joins' }
  | { readonly kind: 'refused-publication'; readonly mismatch: StagingMismatch };

/**
 * How the first table's staging is set apart from production so that the engine must refuse its
 * publication (seed 002's requirements): a different partition key, ordering, structure, storage
 * policy, or a skipping index or projection that production lacks (the target must hold all of
 * the source's). Measured on 26.7, a different storage policy is refused by MOVE only: REPLACE and
 * ATTACH FROM copy the parts to the target's disk instead, so it is drawn with MOVE alone.
 */
export type StagingMismatch =
  'partition-key' | 'ordering' | 'structure' | 'storage-policy' | 'secondary-index' | 'projection';

export const STAGING_MISMATCHES: readonly StagingMismatch[] = [
  'partition-key',
  'ordering',
  'structure',
  'storage-policy',
  'secondary-index',
  'projection',
];

/** The operations that must refuse a mismatch (every one, but a storage policy apart only MOVE). */
export const refusingOperations = (mismatch: StagingMismatch): readonly PublishOperation[] =>
  mismatch === 'storage-policy' ? ['move'] : PUBLISH_OPERATIONS;

/** The statement a fault is aimed at: its kind, and which load and table (indexes into the run's). */
export interface FaultAim {
  readonly step: LoaderStepKind;
  readonly load: number;
  readonly table: number;
}

export const arbPublishCut: fc.Arbitrary<StagedFaultSpec> = fc.constant({ kind: 'publish-cut' as const });
export const arbStageCut: fc.Arbitrary<StagedFaultSpec> = fc.constant({ kind: 'stage-cut' as const });
export const arbSiblingKill: fc.Arbitrary<StagedFaultSpec> = fc.constant({ kind: 'sibling-kill' as const });
export const arbReplicaJoins: fc.Arbitrary<StagedFaultSpec> = fc.constant({ kind: 'replica-joins' as const });
export const arbKeeperLeaderKill: fc.Arbitrary<StagedFaultSpec> = fc.constant({ kind: 'keeper-leader-kill' as const });
export const arbRefusedPublication: fc.Arbitrary<StagedFaultSpec> = fc
  .constantFrom(...STAGING_MISMATCHES)
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
  spec.kind === 'sibling-metadata-lost' ||
  spec.kind === 'replica-joins';

/** The fault that makes one spec real, on the writer (the replica the loader talks to) or its sibling. */
export function stagedFault(
  spec: StagedFaultSpec,
  writer: ReplicaDescription,
  sibling: ReplicaDescription | undefined,
  tables: readonly string[],
  join: JoinPlan | undefined,
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
    case 'replica-joins':
      if (join === undefined) throw new Error('replica-joins needs a node outside the shard');
      return new ReplicaJoins(writer, join.joiner, tables, join.make);
    case 'refused-publication':
      return undefined;
  }
}

/** The shard the loads go to: the first, its first replica the writer. */
export function shardOf(description: ClusterDescription): readonly ReplicaDescription[] {
  return description.shards[0]?.replicas ?? [];
}

/** Where a joining replica is made, and how its tables are made there (journaled by the run). */
export interface JoinPlan {
  readonly joiner: ReplicaDescription;
  readonly make: (context: NemesisContext) => Promise<void>;
}

/**
 * The replicas a run starts with, and the node a `replica-joins` run adds: the shard's third
 * replica when it has one (kept out until the join), else the first replica of the next shard
 * (replication is per table, not per server: seed 004), else none.
 */
export function startingReplicas(
  description: ClusterDescription,
  joins: boolean,
): { readonly replicas: readonly ReplicaDescription[]; readonly joiner?: ReplicaDescription | undefined } {
  const replicas = shardOf(description);
  if (!joins) return { replicas };
  if (replicas.length >= 3) return { replicas: replicas.slice(0, -1), joiner: replicas.at(-1) };
  return { replicas, joiner: description.shards[1]?.replicas[0] };
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
    case 'replica-joins':
      return 'a new replica of the production tables made on another node just before a publication: it must copy what was published and converge';
    case 'refused-publication':
      return `no fault: the first table's staging ${MISMATCH_WORDS[spec.mismatch]}, so the engine refuses its publication`;
  }
}

const MISMATCH_WORDS: Readonly<Record<StagingMismatch, string>> = {
  'partition-key': 'has a different partition key',
  ordering: 'has a different ordering',
  structure: 'has a different structure',
  'storage-policy': 'is on another storage policy',
  'secondary-index': 'has a skipping index that production lacks',
  projection: 'has a projection that production lacks',
};
