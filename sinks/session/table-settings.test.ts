import { describe, expect, it } from 'vitest';
import { tableSettingsOf } from './table-settings.ts';

describe('tableSettingsOf', () => {
  it('reads the SETTINGS clause of engine_full', () => {
    const engineFull =
      "ReplicatedMergeTree('/clickhouse/tables/{shard}/e/t_rep', '{replica}') ORDER BY id SETTINGS replicated_deduplication_window_seconds = 60, index_granularity = 8192";
    expect(Object.fromEntries(tableSettingsOf(engineFull))).toEqual({
      replicated_deduplication_window_seconds: '60',
      index_granularity: '8192',
    });
  });

  it('tells a setting from a longer one sharing its prefix', () => {
    const settings = tableSettingsOf(
      'MergeTree ORDER BY id SETTINGS replicated_deduplication_window_seconds_for_async_inserts = 5',
    );
    expect(settings.get('replicated_deduplication_window_seconds')).toBeUndefined();
    expect(settings.get('replicated_deduplication_window_seconds_for_async_inserts')).toBe('5');
  });

  it('ignores SETTINGS inside quotes or parentheses and unquotes string values', () => {
    const engineFull =
      "MergeTree ORDER BY id TTL toDate('SETTINGS x = 1') + INTERVAL 1 DAY SETTINGS storage_policy = 'it''s', a = 1";
    expect(Object.fromEntries(tableSettingsOf(engineFull.replace("''", "\\'")))).toEqual({
      storage_policy: "it's",
      a: '1',
    });
  });

  it('is empty without a SETTINGS clause', () => {
    expect(tableSettingsOf("Distributed('chaos', 'e', 't_rep')").size).toBe(0);
  });
});
