import { describe, expect, it } from 'vitest';
import type { AsyncInsertSettings } from '../../harness/oracle/index.ts';
import { asyncInsertChecker } from './async-insert-checker.ts';
import type { Observations } from './observations.ts';

const AS_OWED_ON: AsyncInsertSettings = { asyncInsert: true, waitForAsyncInsert: true, asyncInsertDeduplicate: true };
const SYNC: AsyncInsertSettings = { asyncInsert: false, waitForAsyncInsert: true, asyncInsertDeduplicate: false };

const judged = (got: AsyncInsertSettings, owed: boolean | readonly boolean[] | undefined, sendsToken = true) =>
  asyncInsertChecker({
    sendsToken,
    serverAsyncSettings: new Map([['q1', got]]),
    asyncInsertAllowed: new Map(owed === undefined ? [] : [['q1', typeof owed === 'boolean' ? [owed] : owed]]),
  } as unknown as Observations);

describe('asyncInsertChecker', () => {
  it('passes INSERTs that ran as their spec asked', () => {
    expect(judged(AS_OWED_ON, true).verdict).toBe('pass');
    expect(judged(SYNC, false).verdict).toBe('pass');
    expect(judged({ ...AS_OWED_ON, asyncInsertDeduplicate: false }, true, false).verdict).toBe('pass');
  });

  it('flags async_insert other than the spec in force', () => {
    expect(judged(AS_OWED_ON, false).anomalies[0]?.examples).toEqual(['q1: async_insert 1, owed 0']);
    expect(judged(SYNC, true).anomalies[0]?.examples[0]).toMatch(/^q1: async_insert 0, owed 1/);
  });

  it('flags an async INSERT that does not wait, and a token class’s that is not deduplicated', () => {
    const result = judged({ asyncInsert: true, waitForAsyncInsert: false, asyncInsertDeduplicate: false }, true);
    expect(result.anomalies).toEqual([
      {
        category: 'async-insert-not-as-owed',
        count: 1,
        examples: ['q1: wait_for_async_insert 0, owed 1, async_insert_deduplicate 0, owed 1'],
      },
    ]);
  });

  it('takes either value from an INSERT begun while a reconfiguration was being taken, and still judges an async one', () => {
    expect(judged(SYNC, [true, false]).verdict).toBe('pass');
    expect(judged(AS_OWED_ON, [true, false]).verdict).toBe('pass');
    expect(judged({ ...AS_OWED_ON, asyncInsertDeduplicate: false }, [false, true]).anomalies[0]?.examples).toEqual([
      'q1: async_insert_deduplicate 0, owed 1',
    ]);
  });

  it('leaves an INSERT no attempt explains to the server-log check', () => {
    expect(judged(SYNC, undefined).verdict).toBe('pass');
  });
});
