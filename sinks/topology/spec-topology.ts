import { SinkError } from '../errors.ts';
import type { StaticParameters } from '../spec/sink-spec.ts';
import type { EngineKind } from './engine-kind.ts';
import { routingFingerprint, type RoutingLayout } from './routing-fingerprint.ts';
import { targetFingerprint, type TargetIdentity } from './target-fingerprint.ts';
import { UNSHARDED_TARGET, type TargetSlot, type TopologyFingerprints } from './topology-guard.ts';

/** The routing-relevant part of a validated spec. */
export function routingLayoutOf(parameters: StaticParameters): RoutingLayout {
  const { topology } = parameters;
  if (topology.form !== 'shard_hosts') return { sharded: false };
  return { sharded: true, shards: [...topology.shards.keys()], shardingKeyColumns: parameters.sharding_key_columns };
}

/** Each target slot with its hosts in spec order: one slot per shard, or the one unsharded table. */
export function targetSlotsOf(parameters: StaticParameters): ReadonlyMap<TargetSlot, readonly string[]> {
  const { topology } = parameters;
  if (topology.form === 'host') return new Map([[UNSHARDED_TARGET, [topology.host]]]);
  if (topology.form === 'hosts') return new Map([[UNSHARDED_TARGET, topology.hosts]]);
  return topology.shards;
}

/** What the write session learns about one slot's table at start. */
export interface SlotMetadata {
  readonly engine: EngineKind;
  /** From `system.replicas`, for replicated tables. */
  readonly keeper?: { readonly zookeeper_name: string; readonly zookeeper_path: string };
}

/** The identity the seed defines for the slot's engine. */
export function targetIdentityOf(
  parameters: StaticParameters,
  hosts: readonly string[],
  metadata: SlotMetadata,
): TargetIdentity {
  if (metadata.engine === 'replicated') {
    if (!metadata.keeper)
      throw new SinkError(
        'SINK_INTERNAL',
        'A replicated target needs its zookeeper_name and zookeeper_path to be fingerprinted',
      );
    return { kind: 'keeper', ...metadata.keeper };
  }
  if (metadata.engine === 'shared' || metadata.engine === 'plain') {
    return { kind: 'endpoint', database: parameters.database, table: parameters.table, port: parameters.port, hosts };
  }
  throw new SinkError(
    'SINK_INTERNAL',
    `A ${metadata.engine} target has no target fingerprint; the metadata check refuses it before the guard runs`,
  );
}

/** The fingerprints the current spec and metadata yield, to compare with the persisted ones. */
export function currentFingerprints(
  parameters: StaticParameters,
  metadataBySlot: ReadonlyMap<TargetSlot, SlotMetadata>,
): TopologyFingerprints {
  const targets = new Map(
    [...targetSlotsOf(parameters)].map(([slot, hosts]) => {
      const metadata = metadataBySlot.get(slot);
      if (!metadata) throw new SinkError('SINK_INTERNAL', `No table metadata for target '${slot}'`);
      return [slot, targetFingerprint(targetIdentityOf(parameters, hosts, metadata))] as const;
    }),
  );
  return { routing: routingFingerprint(routingLayoutOf(parameters)), targets };
}
