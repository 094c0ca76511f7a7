import type { ReplicaDescription } from '../../../harness/cluster/index.ts';
import type { Fault } from '../fault.ts';
import type { AimTarget } from '../fault-plan.ts';
import {
  constraintViolated,
  notEnoughSpace,
  partWriterFailpoint,
  tableDetached,
  tooManyParts,
  type ServerErrorType,
} from '../table-fault.ts';
import { defineFamily } from './family.ts';

/**
 * Every replica of every shard refuses INSERTs into the run's tables with a server error the seed
 * calls unclassified, until the writes ended: the sink's whole retry budget meets it.
 */
const everyReplica = (t: AimTarget) => t.description.shards.flatMap((shard) => shard.replicas);

const serverError = (type: ServerErrorType, build: (target: AimTarget) => Fault) =>
  defineFamily({
    id: type,
    type,
    heals: 'writes-ended',
    params: {},
    proofs: ['server-code'],
    label: () => 'every replica',
    aim: build,
  });

const onEveryReplica = (fault: (replicas: readonly ReplicaDescription[]) => Fault) => (t: AimTarget) =>
  fault(everyReplica(t));

export const TOO_MANY_PARTS = serverError('too_many_parts', onEveryReplica(tooManyParts));
export const NOT_ENOUGH_SPACE = serverError('not_enough_space', onEveryReplica(notEnoughSpace));
export const TABLE_DETACHED = serverError('table_detached', onEveryReplica(tableDetached));
/** Replicated metadata: altered on one replica per shard. */
export const CONSTRAINT_VIOLATED = serverError('constraint_violated', (t) =>
  constraintViolated(t.description.shards.map((shard) => shard.replicas)),
);
export const PART_WRITER_FAILPOINT = serverError('part_writer_failpoint', onEveryReplica(partWriterFailpoint));

/** Every server-error family, by its fault type (the server-errors scenario draws each once). */
export const SERVER_ERROR_FAMILIES = {
  too_many_parts: TOO_MANY_PARTS,
  not_enough_space: NOT_ENOUGH_SPACE,
  table_detached: TABLE_DETACHED,
  constraint_violated: CONSTRAINT_VIOLATED,
  part_writer_failpoint: PART_WRITER_FAILPOINT,
} as const satisfies Readonly<Record<ServerErrorType, unknown>>;
