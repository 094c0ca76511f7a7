import { describe, expect, it } from 'vitest';
import type { DedupToken } from '../domain/batch-token.ts';
import { SINK_CLASSES } from '../sink-classes.ts';
import { insertSettingsFor } from './insert-settings.ts';

const token = '1-4-17:a' as DedupToken;

describe('insertSettingsFor', () => {
  it.each([SINK_CLASSES.ClickHouseBatchingSink, SINK_CLASSES.ShardedClickHouseBatchingSink])(
    '$name: token always, async dedup with async_insert',
    (sinkClass) => {
      expect(insertSettingsFor(sinkClass, { async_insert: false }, token)).toEqual({
        insert_deduplication_token: token,
        async_insert: 0,
      });
      expect(insertSettingsFor(sinkClass, { async_insert: true }, token)).toEqual({
        insert_deduplication_token: token,
        async_insert: 1,
        wait_for_async_insert: 1,
        async_insert_deduplicate: 1,
      });
    },
  );

  it.each([SINK_CLASSES.AtLeastOnceClickHouseSink, SINK_CLASSES.AtMostOnceClickHouseSink])(
    '$name: no token, no async dedup',
    (sinkClass) => {
      expect(insertSettingsFor(sinkClass, { async_insert: false }, undefined)).toEqual({ async_insert: 0 });
      expect(insertSettingsFor(sinkClass, { async_insert: true }, undefined)).toEqual({
        async_insert: 1,
        wait_for_async_insert: 1,
      });
    },
  );

  it('refuses a missing token for exactly-once and a stray token otherwise', () => {
    expect(() => insertSettingsFor(SINK_CLASSES.ClickHouseBatchingSink, { async_insert: false }, undefined)).toThrow(
      /carry a dedup token/,
    );
    expect(() => insertSettingsFor(SINK_CLASSES.AtLeastOnceClickHouseSink, { async_insert: false }, token)).toThrow(
      /carry no dedup token/,
    );
  });
});
