import { describe, expect, it } from 'vitest';
import { SinkRegistry } from './registry.ts';
import { SINK_CLASSES } from './sink-classes.ts';

describe('SinkRegistry', () => {
  it('holds all four classes by default, in canonical order', () => {
    expect(SinkRegistry.descriptorsOnly().names).toEqual([
      'ClickHouseBatchingSink',
      'ShardedClickHouseBatchingSink',
      'AtLeastOnceClickHouseSink',
      'AtMostOnceClickHouseSink',
    ]);
  });

  it('can be built without a class', () => {
    const registry = SinkRegistry.descriptorsOnly().without('ShardedClickHouseBatchingSink');
    expect(registry.has('ShardedClickHouseBatchingSink')).toBe(false);
    expect(registry.get('ShardedClickHouseBatchingSink')).toBeUndefined();
    expect(registry.names).toHaveLength(3);
  });

  it('carries implementations beside the descriptors', () => {
    const registry = SinkRegistry.of([{ descriptor: SINK_CLASSES.AtLeastOnceClickHouseSink, implementation: 'ctor' }]);
    expect(registry.get('AtLeastOnceClickHouseSink')?.implementation).toBe('ctor');
    expect(registry.names).toEqual(['AtLeastOnceClickHouseSink']);
  });
});

describe('SINK_CLASSES', () => {
  it('records the guarantees, host forms and mechanisms of section 1', () => {
    const facts = Object.values(SINK_CLASSES).map((c) => [
      c.cppName,
      c.guarantee,
      c.hostForms.join('|'),
      c.usesDedupToken,
      c.topologyGuard,
      c.batching,
      c.atMostOnceStrategy,
    ]);
    expect(facts).toEqual([
      ['NYT::NFlow::TClickHouseBatchingSink', 'exactly-once', 'host|hosts', true, true, true, false],
      ['NYT::NFlow::TShardedClickHouseBatchingSink', 'exactly-once', 'shard_hosts', true, true, true, false],
      ['NYT::NFlow::TAtLeastOnceClickHouseSink', 'at-least-once', 'host|hosts|shard_hosts', false, false, false, false],
      ['NYT::NFlow::TAtMostOnceClickHouseSink', 'at-most-once', 'host|hosts|shard_hosts', false, false, false, true],
    ]);
  });
});
