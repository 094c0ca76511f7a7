import { describe, expect, it } from 'vitest';
import { SinkRegistry } from '../registry.ts';
import { parseSinkSpec } from '../spec/validate-spec.ts';
import { checkTopologyGuard, UNSHARDED_TARGET, type TargetSlot } from './topology-guard.ts';
import { currentFingerprints, targetSlotsOf, type SlotMetadata } from './spec-topology.ts';
import type { BatchToken } from '../domain/batch-token.ts';

const context = { registry: SinkRegistry.descriptorsOnly() };
const unshardedSpec = (parameters: Record<string, unknown>) =>
  parseSinkSpec(
    { sink_class_name: 'ClickHouseBatchingSink', name: 's', parameters: { table: 'events', ...parameters } },
    context,
  ).parameters;
const shardedSpec = (shard_hosts: Record<string, string[]>, sharding_key_columns: string[] = []) =>
  parseSinkSpec(
    {
      sink_class_name: 'ShardedClickHouseBatchingSink',
      name: 's',
      parameters: { table: 'events', shard_hosts, sharding_key_columns },
    },
    context,
  ).parameters;
const keeper = (path: string) => ({
  engine: 'replicated' as const,
  keeper: { zookeeper_name: 'default', zookeeper_path: path },
});
const slots = (entries: Array<[string, SlotMetadata]>) =>
  new Map(entries.map(([slot, metadata]) => [slot as TargetSlot, metadata]));
const undelivered = { count: 3, oldestBound: '1-4-17' as BatchToken };

describe('spec topology', () => {
  it('has one unsharded slot for host and hosts, one per shard for shard_hosts', () => {
    expect([...targetSlotsOf(unshardedSpec({ hosts: ['h1', 'h2'] }))]).toEqual([[UNSHARDED_TARGET, ['h1', 'h2']]]);
    expect([...targetSlotsOf(shardedSpec({ b: ['b1'], a: ['a1'] })).keys()]).toEqual(['a', 'b']);
  });

  it('refuses the migration from hosts to shard_hosts while batches are undelivered (the seed example shape)', () => {
    const before = currentFingerprints(
      unshardedSpec({ hosts: ['h1', 'h2'] }),
      slots([[UNSHARDED_TARGET, keeper('/t/events')]]),
    );
    const afterSpec = shardedSpec({ a: ['a1'], b: ['b1'] });
    const after = currentFingerprints(
      afterSpec,
      slots([
        ['a', keeper('/t/01/events')],
        ['b', keeper('/t/02/events')],
      ]),
    );
    const message = checkTopologyGuard({ persisted: before, current: after, undelivered })?.message ?? '';
    expect(message).toContain('    persisted_topology_fingerprint = unsharded\n');
    expect(message).toMatch(/ {4}spec_topology_fingerprint {6}= [0-9a-f]{16}\n/);
  });

  it('lets a replicated shard change its hosts but not its Keeper table', () => {
    const persisted = currentFingerprints(shardedSpec({ a: ['a1', 'a2'] }), slots([['a', keeper('/t/01/events')]]));
    const replaced = currentFingerprints(shardedSpec({ a: ['a3', 'a2'] }), slots([['a', keeper('/t/01/events')]]));
    expect(checkTopologyGuard({ persisted, current: replaced, undelivered })).toBeUndefined();
    const moved = currentFingerprints(shardedSpec({ a: ['a1', 'a2'] }), slots([['a', keeper('/t/09/events')]]));
    expect(checkTopologyGuard({ persisted, current: moved, undelivered })?.kind).toBe('target');
  });

  it('ties a plain MergeTree target to its endpoint', () => {
    const plain = slots([[UNSHARDED_TARGET, { engine: 'plain' }]]);
    const persisted = currentFingerprints(unshardedSpec({ host: 'h1' }), plain);
    expect(
      checkTopologyGuard({ persisted, current: currentFingerprints(unshardedSpec({ host: 'h2' }), plain), undelivered })
        ?.kind,
    ).toBe('target');
    expect(
      checkTopologyGuard({
        persisted,
        current: currentFingerprints(unshardedSpec({ host: 'h1', port: 9000 }), plain),
        undelivered,
      })?.kind,
    ).toBe('target');
    expect(
      checkTopologyGuard({
        persisted,
        current: currentFingerprints(unshardedSpec({ host: 'h1' }), plain),
        undelivered,
      }),
    ).toBeUndefined();
  });

  it('keeps the routing fingerprint when only host_selection_policy changes', () => {
    const meta = slots([['a', keeper('/t/01/events')]]);
    const a = currentFingerprints(shardedSpec({ a: ['a1'] }), meta);
    const b = currentFingerprints({ ...shardedSpec({ a: ['a1'] }), host_selection_policy: 'random_start' }, meta);
    expect(b).toEqual(a);
  });
});
