import { ClickHouseError } from '@clickhouse/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SinkError } from '../errors.ts';
import { decideRetry, InsertAttempts, retryPolicyOf } from './retry-policy.ts';

const policy = { maxInsertAttempts: 3, retryBackoffMs: 1000 };
const unclassified = new ClickHouseError({ message: 'memory', code: '241', type: 'MEMORY_LIMIT_EXCEEDED' });
const transient = Object.assign(new Error('reset'), { code: 'ECONNRESET' });
const permanent = new SinkError('SINK_VALUE_INVALID', 'a value the column cannot hold');

describe('decideRetry', () => {
  it('gives up at once on a permanent error', () => {
    expect(decideRetry('permanent', 1, policy)).toEqual({ action: 'give-up', reason: 'permanent error, not retried' });
  });

  it('retries transient errors after retry_backoff, without limit', () => {
    expect(decideRetry('transient', 1_000_000, policy)).toEqual({ action: 'retry', delayMs: 1000 });
  });

  it('gives up on an unclassified error once max_insert_attempts attempts were made in total', () => {
    expect(decideRetry('unclassified', 2, policy)).toEqual({ action: 'retry', delayMs: 1000 });
    expect(decideRetry('unclassified', 3, policy)).toMatchObject({
      action: 'give-up',
      reason: expect.stringContaining('max_insert_attempts = 3'),
    });
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

  it('counts transient attempts toward the budget an unclassified error is judged by, and never gives up on a transient one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 10 }),
        (isTransient, max) => {
          const attempts = new InsertAttempts({ maxInsertAttempts: max, retryBackoffMs: 0 });
          for (const [index, transientError] of isTransient.entries()) {
            const decision = attempts.fail(transientError ? transient : unclassified);
            if (transientError) expect(decision.action).toBe('retry');
            else expect(decision.action).toBe(index + 1 >= max ? 'give-up' : 'retry');
            if (decision.action === 'give-up') return;
          }
        },
      ),
    );
  });
});

describe('InsertAttempts', () => {
  it('classifies and counts each failure', () => {
    const attempts = new InsertAttempts(policy);
    expect(attempts.fail(transient)).toEqual({ action: 'retry', delayMs: 1000, errorClass: 'transient' });
    expect(attempts.fail(unclassified).action).toBe('retry');
    expect(attempts.fail(transient).action).toBe('retry');
    expect(attempts.fail(unclassified)).toMatchObject({ action: 'give-up', errorClass: 'unclassified' });
    expect(attempts.failures).toEqual({ transient: 2, unclassified: 2, permanent: 0 });
    expect(attempts.attempts).toBe(4);
  });

  it('gives up on the first permanent error', () => {
    expect(new InsertAttempts(policy).fail(permanent)).toMatchObject({ action: 'give-up', errorClass: 'permanent' });
  });

  it('takes its policy from the dynamic parameters', () => {
    expect(retryPolicyOf({ max_insert_attempts: 10, retry_backoff: 1000 })).toEqual({
      maxInsertAttempts: 10,
      retryBackoffMs: 1000,
    });
  });
});
