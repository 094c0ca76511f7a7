import type { SinkWarningKind } from '../api.ts';
import { SinkError } from '../errors.ts';
import { checkEngineAcceptance } from '../target/engine-acceptance.ts';
import { classifyEngine } from '../topology/engine-kind.ts';
import type { SlotMetadata } from '../topology/spec-topology.ts';
import { UNSHARDED_TARGET, type TargetSlot } from '../topology/topology-guard.ts';
import { checkStreamAgainstTable, type ColumnPlan, type TableColumn } from '../types/schema-check.ts';
import type { StreamColumn } from '../types/stream-type.ts';
import { effectiveSetting } from './dedup-window-facts.ts';
import type { EndpointMetadata } from './endpoint-metadata.ts';
import { describeSchemaDifference } from './schema-difference.ts';

export interface SlotEndpoints {
  readonly slot: TargetSlot;
  /** Spec host names, in spec order. */
  readonly hosts: readonly string[];
  /** One per host, same order. */
  readonly endpoints: readonly EndpointMetadata[];
}

export interface TargetCheckInput {
  readonly database: string;
  readonly table: string;
  readonly slots: readonly SlotEndpoints[];
  readonly streamSchema: readonly StreamColumn[];
  readonly shardingKeyColumns: readonly string[];
}

export interface TargetWarning {
  readonly kind: Extract<SinkWarningKind, 'no-block-dedup' | 'column-note'>;
  readonly message: string;
}

export interface CheckedTarget {
  readonly slots: ReadonlyMap<TargetSlot, SlotMetadata>;
  readonly columns: readonly TableColumn[];
  readonly plan: ColumnPlan;
  /** Accepted with reservations: plain MergeTree without dedup, columns ClickHouse fills. */
  readonly warnings: readonly TargetWarning[];
}

/**
 * The session-start metadata checks of section 2, for every class: the table exists on every
 * endpoint; within a shard every endpoint has the same engine and full ordered schema, and a
 * Replicated table the same (zookeeper_name, zookeeper_path); the engine is acceptable for the
 * slot (Distributed, non-MergeTree and multi-host plain/Shared MergeTree refused); every shard
 * has the same engine and schema; the stream fits the table (section 5). Refusals name the
 * endpoint, shard, table and column involved.
 */
export function checkTargetMetadata(input: TargetCheckInput): CheckedTarget {
  const target = `${input.database}.${input.table}`;
  const warnings: TargetWarning[] = [];
  const slots = new Map<TargetSlot, SlotMetadata>();
  let reference: { where: string; engine: string; columns: readonly TableColumn[] } | undefined;

  for (const { slot, hosts, endpoints } of input.slots) {
    const where = slot === UNSHARDED_TARGET ? '' : ` (shard '${slot}')`;
    const tables = endpoints.map((metadata) => {
      if (metadata.table === undefined) {
        throw new SinkError(
          'SINK_TARGET_MISSING',
          `Table ${target} does not exist on endpoint ${metadata.endpoint}${where}; create it on every host of every shard`,
        );
      }
      return { metadata, engine: metadata.table.engine };
    });
    const [first, ...others] = tables;
    if (first === undefined) throw new SinkError('SINK_INTERNAL', `No endpoints for target ${target}${where}`);
    for (const other of others) {
      if (other.engine !== first.engine) {
        mismatch(
          `Endpoints of ${target}${where} disagree on the engine: ${first.metadata.endpoint} has ${first.engine}, ${other.metadata.endpoint} has ${other.engine}; every host of a shard must serve the same table`,
        );
      }
    }
    const kind = classifyEngine(first.engine);
    const nonReplicatedWindows = endpoints.map(
      (metadata) => effectiveSetting(metadata, 'non_replicated_deduplication_window')?.value ?? 0,
    );
    const acceptance = checkEngineAcceptance({
      table: target,
      ...(slot === UNSHARDED_TARGET ? {} : { shard: slot }),
      hosts,
      engine: first.engine,
      kind,
      nonReplicatedDedupWindow: Math.min(...nonReplicatedWindows),
    });
    if (!acceptance.accepted) throw acceptance.error;
    if (acceptance.warning) warnings.push({ kind: 'no-block-dedup', message: acceptance.warning });

    for (const other of others) {
      const difference = describeSchemaDifference(
        { label: first.metadata.endpoint, columns: first.metadata.columns },
        { label: other.metadata.endpoint, columns: other.metadata.columns },
      );
      if (difference)
        mismatch(
          `Endpoints of ${target}${where} disagree on the schema: ${difference}; every host of a shard must serve the same table`,
        );
    }
    slots.set(
      slot,
      kind === 'replicated'
        ? {
            engine: kind,
            keeper: keeperIdentity(
              target,
              where,
              first.metadata,
              others.map((o) => o.metadata),
            ),
          }
        : { engine: kind },
    );

    const slotWhere = `${first.metadata.endpoint}${where}`;
    if (reference === undefined) {
      reference = { where: slotWhere, engine: first.engine, columns: first.metadata.columns };
    } else {
      if (reference.engine !== first.engine) {
        mismatch(
          `Shards of ${target} disagree on the engine: ${reference.where} has ${reference.engine}, ${slotWhere} has ${first.engine}; every shard must hold the same table`,
        );
      }
      const difference = describeSchemaDifference(
        { label: reference.where, columns: reference.columns },
        { label: slotWhere, columns: first.metadata.columns },
      );
      if (difference)
        mismatch(`Shards of ${target} disagree on the schema: ${difference}; every shard must hold the same table`);
    }
  }

  const columns = reference?.columns ?? [];
  const plan = checkStreamAgainstTable(input.streamSchema, columns, {
    target,
    shardingKeyColumns: input.shardingKeyColumns,
  });
  warnings.push(...plan.notes.map((note) => ({ kind: 'column-note' as const, message: `Target ${target}: ${note}` })));
  return { slots, columns, plan, warnings };
}

/** The Keeper table every replica of the slot must share; replica names may differ. */
function keeperIdentity(
  target: string,
  where: string,
  first: EndpointMetadata,
  others: readonly EndpointMetadata[],
): NonNullable<SlotMetadata['keeper']> {
  const identityOf = (metadata: EndpointMetadata) => {
    if (metadata.replica === undefined) {
      mismatch(
        `Endpoint ${metadata.endpoint}${where} reports ${target} as replicated but has no row for it in system.replicas; check the table on that host`,
      );
    }
    return metadata.replica;
  };
  const reference = identityOf(first);
  for (const other of others) {
    const identity = identityOf(other);
    if (identity.zookeeper_name !== reference.zookeeper_name || identity.zookeeper_path !== reference.zookeeper_path) {
      mismatch(
        `Endpoints of ${target}${where} are not replicas of one table: ${first.endpoint} has zookeeper_name '${reference.zookeeper_name}', zookeeper_path '${reference.zookeeper_path}', ` +
          `${other.endpoint} has zookeeper_name '${identity.zookeeper_name}', zookeeper_path '${identity.zookeeper_path}'; replicas of one table share both (replica_name may differ)`,
      );
    }
  }
  return { zookeeper_name: reference.zookeeper_name, zookeeper_path: reference.zookeeper_path };
}

function mismatch(message: string): never {
  throw new SinkError('SINK_TARGET_MISMATCH', message);
}
