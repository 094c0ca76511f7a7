import { describe, expect, it } from 'vitest';
import { classifyEngine } from './engine-kind.ts';

describe('classifyEngine', () => {
  it.each([
    ['ReplicatedMergeTree', 'replicated'],
    ['ReplicatedReplacingMergeTree', 'replicated'],
    ['SharedMergeTree', 'shared'],
    ['SharedReplacingMergeTree', 'shared'],
    ['MergeTree', 'plain'],
    ['ReplacingMergeTree', 'plain'],
    ['VersionedCollapsingMergeTree', 'plain'],
    ['Distributed', 'distributed'],
    ['Log', 'other'],
    ['Memory', 'other'],
    ['MaterializedView', 'other'],
  ])('%s is %s', (engine, kind) => expect(classifyEngine(engine)).toBe(kind));
});
