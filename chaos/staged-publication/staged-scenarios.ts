import fc from 'fast-check';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { STAGED_LOADER_CLASS } from '../../properties/base/index.ts';
import type { PublishOperation } from '../../sinks/index.ts';
import type { Profile } from '../executor/index.ts';
import {
  arbKeeperCut,
  arbKeeperLeaderKill,
  arbKeeperlessStart,
  arbMetadataLost,
  arbPublishCut,
  arbRefusedPublication,
  arbReplicaJoins,
  arbSiblingKill,
  arbStageCut,
  needsReplication,
  refusingOperations,
  type StagedFaultSpec,
  startingReplicas,
} from './staged-faults.ts';
import type { StagedRunInput } from './staged-run.ts';

/** One scenario of the staged loader: its fault, the operations it publishes with, and its least number of tables. */
export interface StagedScenario {
  readonly name: string;
  readonly description: string;
  readonly classes: readonly [typeof STAGED_LOADER_CLASS];
  readonly profiles: readonly Profile[];
  readonly fault: fc.Arbitrary<StagedFaultSpec>;
  readonly operations: readonly PublishOperation[];
  /** Tables per load, least and most: a switch across tables needs two; a one-table load is a boundary of its own. */
  readonly tables: readonly [number, number];
  /** Under alternating dedup, the first run has it off (a repeat that dedup would hide shows on every one-run job). */
  readonly dedupOffFirst: boolean;
  /** Keeper members of its cluster: the default one, or a three-member ensemble (whose leader can be lost). */
  readonly keepers: 1 | 3;
  /** A node its fault acts on beside the writer: the writer's sibling, or a node outside the shard's replicas to join. */
  readonly needs?: 'sibling' | 'joiner' | undefined;
}

const scenario = (
  name: string,
  description: string,
  fault: fc.Arbitrary<StagedFaultSpec>,
  operations: readonly PublishOperation[],
  tables: readonly [number, number],
  dedupOffFirst = true,
  keepers: 1 | 3 = 1,
  profiles: readonly Profile[] = keepers === 3 ? ['full'] : ['ci', 'full'],
  needs?: 'sibling' | 'joiner',
): StagedScenario => ({
  needs,
  name,
  description,
  classes: [STAGED_LOADER_CLASS],
  // An ensemble is a cluster of its own, which `ci` does not start (as for the sinks' ensemble scenarios).
  profiles,
  fault,
  operations,
  tables,
  dedupOffFirst,
  keepers,
});

/**
 * One scenario per operation under a lost answer (what a repeat owes differs by operation), so
 * every `ci` job meets all three; a one-table load (REPLACE's) and a multi-table switch (the
 * Keeper cut's) are each met on purpose, not left to a draw.
 */
export const STAGED_SCENARIOS: readonly StagedScenario[] = [
  scenario(
    'staged-move-unknown',
    "MOVE PARTITION's answer cut after the server ran it: the repeat finds staging empty and moves nothing",
    arbPublishCut,
    ['move'],
    [1, 3],
  ),
  scenario(
    'staged-replace-unknown',
    "REPLACE PARTITION's answer cut after the server ran it, one-table loads: the repeat replaces with the same parts",
    arbPublishCut,
    ['replace'],
    [1, 1],
  ),
  scenario(
    'staged-attach-unknown',
    "ATTACH PARTITION FROM's answer cut after the server ran it: the repeat may publish the load twice (owed at-least-once)",
    arbPublishCut,
    ['attach'],
    [1, 3],
  ),
  scenario(
    'staged-staging-unknown',
    "a staging INSERT's answer cut: the load is truncated and staged again, never published in part",
    arbStageCut,
    ['move', 'replace', 'attach'],
    [1, 3],
    false,
  ),
  scenario(
    'staged-replica-kill',
    "the writer's sibling replica killed during a publication and restarted: it must converge",
    arbSiblingKill,
    ['move', 'replace', 'attach'],
    [1, 3],
    false,
    1,
    ['ci', 'full'],
    'sibling',
  ),
  scenario(
    'staged-keeper-cut',
    "the writer's Keeper links cut during a multi-table switch: the publication fails until they heal, readers see the window",
    arbKeeperCut,
    ['move', 'replace', 'attach'],
    [2, 3],
    false,
  ),
  scenario(
    'staged-replica-keeperless',
    "seed 004: the writer's sibling started while its Keeper links are cut, read-only from the start, during a publication: it must catch up once they heal",
    arbKeeperlessStart,
    ['move', 'replace', 'attach'],
    [1, 3],
    false,
    1,
    ['ci', 'full'],
    'sibling',
  ),
  scenario(
    'staged-replica-restore',
    "seed 004: the writer's sibling loses its Keeper metadata while down, starts read-only, and is repaired with SYSTEM RESTORE REPLICA after a publication: it must converge",
    arbMetadataLost,
    ['move', 'replace', 'attach'],
    [1, 3],
    false,
    1,
    ['ci', 'full'],
    'sibling',
  ),
  scenario(
    'staged-replica-joins',
    'seed 004: a new replica of the production tables made on another node just before a publication: it must copy every load published, take the switch, and converge',
    arbReplicaJoins,
    ['move', 'replace', 'attach'],
    [1, 3],
    false,
    1,
    ['ci', 'full'],
    'joiner',
  ),
  scenario(
    'staged-refused',
    'staging set apart from production (partition key, ordering, structure, storage policy, an index or projection production lacks): the engine refuses the publication, and the loader must say so',
    arbRefusedPublication,
    ['move', 'replace', 'attach'],
    [1, 3],
    false,
  ),
  scenario(
    'staged-keeper-leader',
    "the Keeper ensemble's leader killed during a multi-table switch (full profile: a three-member ensemble)",
    arbKeeperLeaderKill,
    ['move', 'replace', 'attach'],
    [2, 3],
    false,
    3,
  ),
];

/**
 * Why a staged scenario cannot run on this cluster (one line; it is then `inconclusive` with it),
 * or undefined: its fault needs the writer's sibling, or a node outside the loads' replicas.
 */
export function whyNotStagedRunnable(scenario: StagedScenario, description: ClusterDescription): string | undefined {
  const replicas = description.shards[0]?.replicas.length ?? 0;
  if (scenario.needs === 'sibling' && replicas < 2)
    return `not run: its fault acts on the writer's sibling, and the first shard has ${replicas} replica(s)`;
  if (scenario.needs === 'joiner' && startingReplicas(description, true).joiner === undefined)
    return `not run: a replica joins from a node outside the loads' replicas (a third replica of the first shard, or a second shard), and the cluster has ${description.shards.length} shard(s), the first with ${replicas} replica(s)`;
  return undefined;
}

/** The operations a run may publish with: a refusal scenario's only those that refuse its mismatch. */
const operationsFor = (definition: StagedScenario, fault: StagedFaultSpec): readonly PublishOperation[] => {
  if (fault.kind !== 'refused-publication') return definition.operations;
  const refusing = refusingOperations(fault.mismatch);
  return definition.operations.filter((operation) => refusing.includes(operation));
};

/** A run's whole input: the operation, the tables' engine, the loads' shape, the readers' pace, the fault and its aim. */
export const arbStagedRunInput = (definition: StagedScenario): fc.Arbitrary<StagedRunInput> =>
  definition.fault.chain((fault) =>
    fc.record({
      operation: fc.constantFrom(...operationsFor(definition, fault)),
      replicated: needsReplication(fault) ? fc.constant(true) : fc.boolean(),
      shape: fc.record({
        tables: fc.integer({ min: definition.tables[0], max: definition.tables[1] }),
        batches: fc.integer({ min: 2, max: 6 }),
        rowsPerBatch: fc.integer({ min: 20, max: 400 }),
      }),
      loads: fc.integer({ min: 2, max: 5 }),
      arrivalMs: fc.integer({ min: 20, max: 150 }),
      readerPauseMs: fc.integer({ min: 5, max: 40 }),
      fault: fc.constant(fault),
      aim: fc.record({ load: fc.nat({ max: 4 }), table: fc.nat({ max: 2 }) }),
    }),
  );
