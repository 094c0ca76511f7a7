import { describe, expect, it } from 'vitest';
import { dedupWindowFacts, effectiveSetting } from './dedup-window-facts.ts';
import type { EndpointMetadata } from './endpoint-metadata.ts';

const server = {
  replicated_deduplication_window_seconds: '3600',
  replicated_deduplication_window_seconds_for_async_inserts: '604800',
  non_replicated_deduplication_window: '0',
};

function endpoint(
  name: string,
  engineSettings = '',
  serverSettings: Record<string, string> = server,
): EndpointMetadata {
  const settings = engineSettings === '' ? '' : ` SETTINGS ${engineSettings}`;
  return {
    endpoint: name,
    table: {
      engine: 'ReplicatedMergeTree',
      engine_full: `ReplicatedMergeTree('/p', '{replica}') ORDER BY id${settings}`,
    },
    columns: [],
    replica: undefined,
    serverSettings,
  };
}

describe('dedup window facts', () => {
  it('takes the table override over the server default and says which one', () => {
    expect(
      effectiveSetting(
        endpoint('a:1', 'replicated_deduplication_window_seconds = 60'),
        'replicated_deduplication_window_seconds',
      ),
    ).toEqual({ value: 60, source: 'table', endpoint: 'a:1' });
    expect(effectiveSetting(endpoint('a:1'), 'replicated_deduplication_window_seconds')).toEqual({
      value: 3600,
      source: 'server',
      endpoint: 'a:1',
    });
  });

  it('compares the smallest window over every endpoint', () => {
    const facts = dedupWindowFacts([
      endpoint('a:1'),
      endpoint('b:1', 'replicated_deduplication_window_seconds = 120'),
      endpoint('c:1', '', { ...server, replicated_deduplication_window_seconds_for_async_inserts: '10' }),
    ]);
    expect(facts.windowSeconds).toEqual({ value: 120, source: 'table', endpoint: 'b:1' });
    expect(facts.asyncWindowSeconds).toEqual({ value: 10, source: 'server', endpoint: 'c:1' });
  });

  it('counts a window no endpoint reports as 0 (warns rather than trusts)', () => {
    expect(dedupWindowFacts([endpoint('a:1', '', {})]).windowSeconds.value).toBe(0);
  });
});
