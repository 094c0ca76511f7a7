import { SinkError } from '../errors.ts';
import type { BatchToken } from '../domain/batch-token.ts';
import type { RoutingFingerprint, TargetFingerprint } from '../domain/fingerprint.ts';
import type { ShardName } from '../domain/shard-name.ts';

/** Where a target fingerprint belongs: a shard, or the one table of the `host`/`hosts` forms. */
export const UNSHARDED_TARGET = '(unsharded)';
export type TargetSlot = ShardName | typeof UNSHARDED_TARGET;

/** The fingerprints a batching sink persists beside its outbox, and the ones the spec yields now. */
export interface TopologyFingerprints {
  readonly routing: RoutingFingerprint;
  readonly targets: ReadonlyMap<TargetSlot, TargetFingerprint>;
}

export interface UndeliveredBatches {
  readonly count: number;
  /** The batch token of the oldest undelivered batch. */
  readonly oldestBound: BatchToken;
}

export interface TopologyGuardInput {
  /** Undefined for a partition that never persisted fingerprints. */
  readonly persisted: TopologyFingerprints | undefined;
  readonly current: TopologyFingerprints;
  /** Undefined or a zero count for a drained partition. */
  readonly undelivered: UndeliveredBatches | undefined;
}

/** The refusal `Init` throws; `message` is the exact text operators see. */
export class TopologyChangedError extends SinkError {
  constructor(
    message: string,
    readonly kind: 'routing' | 'target',
    readonly undelivered: UndeliveredBatches,
  ) {
    super('SINK_TOPOLOGY_CHANGED', message);
  }
}

const field = (name: string, value: string) => `    ${name.padEnd(30)} = ${value}`;

/**
 * The topology guard of the batching classes, per partition: with undelivered batches, a routing
 * fingerprint or any shard's target fingerprint that differs from the persisted one refuses the
 * start. A drained partition (or one with no persisted fingerprints) starts under the new
 * topology. A routing change is reported with the seed's exact text; when routing is unchanged
 * but a target changed, the same shape names the shard(s) and the target fingerprints.
 */
export function checkTopologyGuard(input: TopologyGuardInput): TopologyChangedError | undefined {
  const { persisted, current, undelivered } = input;
  if (persisted === undefined || undelivered === undefined || undelivered.count === 0) return undefined;

  if (persisted.routing !== current.routing) {
    return new TopologyChangedError(
      [
        `Refusing to start the ClickHouse sink: the shard topology changed while ${undelivered.count} batch(es) are still undelivered; replaying them under the new topology would duplicate or drop rows. Restore the previous shard_hosts / sharding_key_columns, let the pipeline drain to completion, then apply the change`,
        field('persisted_topology_fingerprint', persisted.routing),
        field('spec_topology_fingerprint', current.routing),
        field('oldest_undelivered_batch_bound', undelivered.oldestBound),
      ].join('\n'),
      'routing',
      undelivered,
    );
  }

  const changed = [...persisted.targets]
    .filter(([slot, fingerprint]) => current.targets.get(slot) !== fingerprint)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (changed.length === 0) return undefined;
  const sharded = changed.some(([slot]) => slot !== UNSHARDED_TARGET);
  const which = sharded
    ? `the target table of shard(s) ${changed.map(([slot]) => `'${slot}'`).join(', ')}`
    : 'the target table';
  return new TopologyChangedError(
    [
      `Refusing to start the ClickHouse sink: ${which} changed while ${undelivered.count} batch(es) are still undelivered; replaying them into a target that cannot be proven to be the same table would duplicate or drop rows. Restore the previous endpoint (database, table, port and hosts, or the same Keeper table), let the pipeline drain to completion, then apply the change`,
      ...changed.flatMap(([slot, fingerprint]) => [
        ...(sharded ? [field('shard', slot)] : []),
        field('persisted_target_fingerprint', fingerprint),
        field('spec_target_fingerprint', current.targets.get(slot) ?? 'none'),
      ]),
      field('oldest_undelivered_batch_bound', undelivered.oldestBound),
    ].join('\n'),
    'target',
    undelivered,
  );
}
