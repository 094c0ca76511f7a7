import { describe, expect, it } from 'vitest';
import type { BatchToken } from '../domain/batch-token.ts';
import {
  UNSHARDED_ROUTING_FINGERPRINT,
  type RoutingFingerprint,
  type TargetFingerprint,
} from '../domain/fingerprint.ts';
import { shardName } from '../domain/shard-name.ts';
import { checkTopologyGuard, UNSHARDED_TARGET, type TargetSlot, type TopologyFingerprints } from './topology-guard.ts';

const routing = (value: string) => value as RoutingFingerprint;
const targets = (entries: Array<[TargetSlot, string]>) =>
  new Map(entries.map(([slot, fp]) => [slot, fp as TargetFingerprint]));
const undelivered = { count: 3, oldestBound: '1-4-17' as BatchToken };
const a = shardName('a');
const b = shardName('b');

const unsharded: TopologyFingerprints = {
  routing: UNSHARDED_ROUTING_FINGERPRINT,
  targets: targets([[UNSHARDED_TARGET, '00000000000000aa']]),
};
const sharded: TopologyFingerprints = {
  routing: routing('3f2a17c9b4e05d81'),
  targets: targets([
    [a, '00000000000000a1'],
    [b, '00000000000000b1'],
  ]),
};

describe('checkTopologyGuard', () => {
  it('refuses a routing change with the seed text, byte for byte', () => {
    const refusal = checkTopologyGuard({ persisted: unsharded, current: sharded, undelivered });
    expect(refusal?.code).toBe('SINK_TOPOLOGY_CHANGED');
    expect(refusal?.message).toBe(
      'Refusing to start the ClickHouse sink: the shard topology changed while 3 batch(es) are still undelivered; replaying them under the new topology would duplicate or drop rows. Restore the previous shard_hosts / sharding_key_columns, let the pipeline drain to completion, then apply the change\n' +
        '    persisted_topology_fingerprint = unsharded\n' +
        '    spec_topology_fingerprint      = 3f2a17c9b4e05d81\n' +
        '    oldest_undelivered_batch_bound = 1-4-17',
    );
  });

  it('lets a drained partition, or one without persisted fingerprints, start under the new topology', () => {
    expect(checkTopologyGuard({ persisted: unsharded, current: sharded, undelivered: undefined })).toBeUndefined();
    expect(
      checkTopologyGuard({ persisted: unsharded, current: sharded, undelivered: { ...undelivered, count: 0 } }),
    ).toBeUndefined();
    expect(checkTopologyGuard({ persisted: undefined, current: sharded, undelivered })).toBeUndefined();
  });

  it('accepts an unchanged topology with undelivered batches', () => {
    expect(
      checkTopologyGuard({
        persisted: sharded,
        current: { ...sharded, targets: new Map(sharded.targets) },
        undelivered,
      }),
    ).toBeUndefined();
  });

  it('refuses a changed target of one shard, naming it', () => {
    const current = {
      ...sharded,
      targets: targets([
        [a, '00000000000000a1'],
        [b, '00000000000000b2'],
      ]),
    };
    const refusal = checkTopologyGuard({ persisted: sharded, current, undelivered });
    expect(refusal?.kind).toBe('target');
    expect(refusal?.message).toBe(
      "Refusing to start the ClickHouse sink: the target table of shard(s) 'b' changed while 3 batch(es) are still undelivered; replaying them into a target that cannot be proven to be the same table would duplicate or drop rows. Restore the previous endpoint (database, table, port and hosts, or the same Keeper table), let the pipeline drain to completion, then apply the change\n" +
        '    shard                          = b\n' +
        '    persisted_target_fingerprint   = 00000000000000b1\n' +
        '    spec_target_fingerprint        = 00000000000000b2\n' +
        '    oldest_undelivered_batch_bound = 1-4-17',
    );
  });

  it('refuses a changed unsharded target without a shard line', () => {
    const current = { ...unsharded, targets: targets([[UNSHARDED_TARGET, '00000000000000ab']]) };
    const message = checkTopologyGuard({ persisted: unsharded, current, undelivered })?.message ?? '';
    expect(message.split('\n')[0]).toContain('the target table changed while 3 batch(es)');
    expect(message).not.toContain('shard ');
    expect(message).toContain('    spec_target_fingerprint        = 00000000000000ab');
  });

  it('reports the routing change, not the targets, when both changed', () => {
    const current = { routing: routing('0000000000000001'), targets: targets([[a, 'ffffffffffffffff']]) };
    expect(checkTopologyGuard({ persisted: sharded, current, undelivered })?.kind).toBe('routing');
  });
});
