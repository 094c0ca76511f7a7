import { describe, expect, it } from 'vitest';
import { hasErrorCode } from '../errors.ts';
import { GIVE_UP_MESSAGE, InsertGaveUpError, SinkInstanceHealth } from './insert-give-up.ts';

const gaveUp = () =>
  new InsertGaveUpError(
    {
      errorClass: 'permanent',
      reason: 'permanent error, not retried',
      attempts: 1,
      shard: 'a',
      dedupToken: '1-4-17:a',
    },
    new Error('Code: 60. DB::Exception: Table default.events does not exist. (UNKNOWN_TABLE)'),
  );

describe('InsertGaveUpError', () => {
  it('carries exactly the seed text as its message', () => {
    expect(GIVE_UP_MESSAGE).toBe('Giving up insert into ClickHouse');
    const error = gaveUp();
    expect(error.message).toBe('Giving up insert into ClickHouse');
    expect(error.code).toBe('SINK_INSERT_GAVE_UP');
    expect((error.cause as Error).message).toMatch(/UNKNOWN_TABLE/);
  });

  it('describes the particulars as attribute lines', () => {
    expect(gaveUp().describe()).toBe(
      [
        'Giving up insert into ClickHouse',
        '    error_class = permanent',
        '    reason      = permanent error, not retried',
        '    attempts    = 1',
        '    shard       = a',
        '    dedup_token = 1-4-17:a',
        '    last_error  = Code: 60. DB::Exception: Table default.events does not exist. (UNKNOWN_TABLE)',
      ].join('\n'),
    );
  });
});

describe('SinkInstanceHealth', () => {
  it('accepts writes until poisoned, then rejects every write with the give-up as cause', () => {
    const health = new SinkInstanceHealth();
    expect(() => health.assertWritable()).not.toThrow();
    const first = gaveUp();
    health.poison(first);
    health.poison(gaveUp());
    expect(health.poisoned).toBe(true);
    for (let i = 0; i < 3; i += 1) {
      try {
        health.assertWritable();
        expect.unreachable();
      } catch (error) {
        expect(hasErrorCode(error, 'SINK_POISONED')).toBe(true);
        expect((error as Error).cause).toBe(first);
        expect((error as Error).message).toMatch(/pause and restart the pipeline to create a new sink instance/);
      }
    }
  });
});
