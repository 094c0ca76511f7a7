import { describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { dedupMayBeOff, singleHosts, tableEngine, targetEndpoints } from './target-table.ts';

const endpoints = {
  port: 8123,
  shards: new Map([
    ['s1', ['127.10.1.1', '127.10.1.2']],
    ['s2', ['127.10.2.1', '127.10.2.2']],
  ]),
};
const description = {
  shards: [
    { name: 's1', replicas: [{ name: 's1r1' }, { name: 's1r2' }] },
    { name: 's2', replicas: [{ name: 's2r1' }, { name: 's2r2' }] },
  ],
} as unknown as ClusterDescription;

describe('the run table a scenario names', () => {
  it('restricts specs and the oracle to one host per shard only for single-host MergeTree', () => {
    expect(targetEndpoints(endpoints, 'single-host-merge-tree').shards.get('s2')).toEqual(['127.10.2.1']);
    expect(targetEndpoints(endpoints, 'short-dedup-window')).toBe(endpoints);
    expect(singleHosts(description, 'single-host-merge-tree')).toEqual(['s1r1', 's2r1']);
    expect(singleHosts(description, 'short-dedup-window')).toBeUndefined();
    expect(singleHosts(description, 'replicated')).toBeUndefined();
  });

  it('lets token-less classes and the tables under test run without block dedup', () => {
    expect(dedupMayBeOff('replicated', true)).toBe(false);
    expect(dedupMayBeOff('short-dedup-window', true)).toBe(true);
  });

  it('writes the settings each case needs', () => {
    expect(tableEngine('single-host-merge-tree', true)).toEqual({ engine: 'MergeTree', settings: [] });
    expect(tableEngine('short-dedup-window', true).settings).toContain('replicated_deduplication_window_seconds = 1');
    expect(tableEngine('short-dedup-window', false).settings.join()).not.toMatch(/window_seconds/);
    expect(tableEngine('replicated', true).settings).toContain('replicated_deduplication_window = 0');
  });
});
