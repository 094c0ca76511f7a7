import { describe, expect, it } from 'vitest';
import { classifyEngine } from '../topology/engine-kind.ts';
import { checkEngineAcceptance, type SlotTarget } from './engine-acceptance.ts';

const target = (engine: string, hosts: string[], extra: Partial<SlotTarget> = {}): SlotTarget => ({
  table: 'default.events',
  shard: 'a',
  hosts,
  engine,
  kind: classifyEngine(engine),
  ...extra,
});

describe('checkEngineAcceptance', () => {
  it('accepts replicated tables on any number of hosts', () => {
    expect(checkEngineAcceptance(target('ReplicatedMergeTree', ['h1', 'h2']))).toEqual({ accepted: true });
  });

  it('refuses Distributed and non-MergeTree targets', () => {
    const distributed = checkEngineAcceptance(target('Distributed', ['h1']));
    expect(distributed.accepted || distributed.error.message).toMatch(
      /^Target default.events \(shard 'a'\) is a Distributed table/,
    );
    const log = checkEngineAcceptance(target('Log', ['h1']));
    expect(log.accepted || log.error.code).toBe('SINK_TARGET_INVALID');
  });

  it('refuses several hosts for plain MergeTree and SharedMergeTree', () => {
    for (const engine of ['MergeTree', 'SharedMergeTree']) {
      const result = checkEngineAcceptance(target(engine, ['h1', 'h2']));
      expect(result.accepted || result.error.message).toMatch(/cannot prove they are one logical table/);
    }
  });

  it('accepts single-host SharedMergeTree silently and single-host MergeTree with a warning unless dedup is on', () => {
    expect(checkEngineAcceptance(target('SharedMergeTree', ['h1']))).toEqual({ accepted: true });
    expect(checkEngineAcceptance(target('MergeTree', ['h1'], { shard: undefined }))).toEqual({
      accepted: true,
      warning:
        'Target default.events has engine MergeTree without block deduplication: exactly-once degrades to at-least-once unless the table sets non_replicated_deduplication_window',
    });
    expect(checkEngineAcceptance(target('ReplacingMergeTree', ['h1'], { nonReplicatedDedupWindow: 100 }))).toEqual({
      accepted: true,
    });
  });
});
