import { describe, expect, it } from 'vitest';
import { checkDedupWindow } from './dedup-window.ts';

const base = {
  database: 'default',
  table: 'events',
  asyncInsert: false,
  replayHorizonMs: 86_400_000,
  windowSeconds: 604_800,
  asyncWindowSeconds: 180,
};

describe('checkDedupWindow', () => {
  it('stays quiet when the window covers the replay horizon', () => {
    expect(checkDedupWindow(base)).toBeUndefined();
    expect(checkDedupWindow({ ...base, windowSeconds: 86_400 })).toBeUndefined();
  });

  it('warns with the seed attributes when the window is shorter', () => {
    expect(checkDedupWindow({ ...base, windowSeconds: 3600 })).toEqual({
      Database: 'default',
      Table: 'events',
      DedupWindowSetting: 'replicated_deduplication_window_seconds',
      ReplayHorizon: '1d',
      DedupWindow: '1h',
    });
  });

  it('compares with the async window when async_insert is on', () => {
    expect(checkDedupWindow({ ...base, asyncInsert: true })).toMatchObject({
      DedupWindowSetting: 'replicated_deduplication_window_seconds_for_async_inserts',
      DedupWindow: '3m',
    });
  });
});
