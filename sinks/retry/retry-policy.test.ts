import { ClickHouseError } from '@clickhouse/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InsertErrorClass } from './error-classification.ts';
import { decideRetry, InsertAttempts, retryPolicyOf } from './retry-policy.ts';

const policy = { maxInsertAttempts: 3, retryBackoffMs: 1000 };
const unclassified = new ClickHouseError({ message: 'memory', code: '241', type: 'MEMORY_LIMIT_EXCEEDED' });
const transient = Object.assign(new Error('reset'), { code: 'ECONNRESET' });
const permanent = new ClickHouseError({ message: 'no table', code: '60', type: 'UNKNOWN_TABLE' });

describe('decideRetry', () => {
  it('gives up at once on a permanent error', () => {
    expect(decideRetry('permanent', { transient: 0, unclassified: 0 }, policy)).toEqual({ action: 'give-up', reason: 'permanent error, not retried' });
  });

  it('retries transient errors after retry_backoff, without limit', () => {
    expect(decideRetry('transient', { transient: 1_000_000, unclassified: 2 }, policy)).toEqual({ action: 'retry', delayMs: 1000 });
  });

  it('gives up when max_insert_attempts attempts ended in unclassified errors', () => {
    expect(decideRetry('unclassified', { transient: 0, unclassified: 2 }, policy)).toEqual({ action: 'retry', delayMs: 1000 });
    expect(decideRetry('unclassified', { transient: 0, unclassified: 3 }, policy)).toMatchObject({ action: 'give-up', reason: expect.stringContaining('max_insert_attempts = 3') });
  });

  it('makes exactly max_insert_attempts attempts when every attempt fails unclassified', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), (max) => {
        const attempts = new InsertAttempts({ maxInsertAttempts: max, retryBackoffMs: 0 });
        let decision = attempts.fail(unclassified);
        while (decision.action === 'retry') decision = attempts.fail(unclassified);
        expect(attempts.attempts).toBe(max);
      }),
    );
  });

  it('never gives up on a transient error, whatever came before', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<InsertErrorClass>('transient', 'unclassified')), fc.integer({ min: 1, max: 10 }), (history, max) => {
        const counts = { transient: 0, unclassified: 0 };
        for (const errorClass of history) counts[errorClass as 'transient' | 'unclassified'] += 1;
        expect(decideRetry('transient', { ...counts, transient: counts.transient + 1 }, { maxInsertAttempts: max, retryBackoffMs: 5 }).action).toBe('retry');
      }),
    );
  });
});

describe('InsertAttempts', () => {
  it('classifies and counts each failure', () => {
    const attempts = new InsertAttempts(policy);
    expect(attempts.fail(transient)).toEqual({ action: 'retry', delayMs: 1000, errorClass: 'transient' });
    expect(attempts.fail(unclassified).action).toBe('retry');
    expect(attempts.fail(unclassified).action).toBe('retry');
    expect(attempts.fail(transient).action).toBe('retry');
    expect(attempts.fail(unclassified)).toMatchObject({ action: 'give-up', errorClass: 'unclassified' });
    expect(attempts.failures).toEqual({ transient: 2, unclassified: 3, permanent: 0 });
    expect(attempts.attempts).toBe(5);
  });

  it('gives up on the first permanent error', () => {
    expect(new InsertAttempts(policy).fail(permanent)).toMatchObject({ action: 'give-up', errorClass: 'permanent' });
  });

  it('takes its policy from the dynamic parameters', () => {
    expect(retryPolicyOf({ max_insert_attempts: 10, retry_backoff: 1000 })).toEqual({ maxInsertAttempts: 10, retryBackoffMs: 1000 });
  });
});
