import type { DynamicParameters } from '../spec/sink-spec.ts';
import { classifyInsertError, type InsertErrorClass } from './error-classification.ts';

export interface RetryPolicy {
  readonly maxInsertAttempts: number;
  readonly retryBackoffMs: number;
}

export function retryPolicyOf(dynamic: Pick<DynamicParameters, 'max_insert_attempts' | 'retry_backoff'>): RetryPolicy {
  return { maxInsertAttempts: dynamic.max_insert_attempts, retryBackoffMs: dynamic.retry_backoff };
}

/** Failed attempts of one insert so far, by class, including the one being decided. */
export interface InsertFailureCounts {
  readonly transient: number;
  readonly unclassified: number;
}

export type RetryDecision =
  | { readonly action: 'retry'; readonly delayMs: number }
  | { readonly action: 'give-up'; readonly reason: string };

/**
 * After a failed insert attempt: a permanent error gives up at once; a transient one is retried
 * after `retry_backoff`, without limit; an unclassified one is retried until
 * `max_insert_attempts` attempts have ended in unclassified errors (so with only such errors
 * there are exactly `max_insert_attempts` attempts in total). Transient failures in between do
 * not use up that budget: they are the ones known to be harmless to repeat.
 */
export function decideRetry(errorClass: InsertErrorClass, failures: InsertFailureCounts, policy: RetryPolicy): RetryDecision {
  if (errorClass === 'permanent') return { action: 'give-up', reason: 'permanent error, not retried' };
  if (errorClass === 'unclassified' && failures.unclassified >= policy.maxInsertAttempts) {
    return { action: 'give-up', reason: `${failures.unclassified} attempt(s) ended in unclassified errors (max_insert_attempts = ${policy.maxInsertAttempts})` };
  }
  return { action: 'retry', delayMs: policy.retryBackoffMs };
}

/** The attempt history of one insert (one batch on one shard); a success ends it. */
export class InsertAttempts {
  private counts = { transient: 0, unclassified: 0, permanent: 0 };

  constructor(private readonly policy: RetryPolicy) {}

  get attempts(): number {
    return this.counts.transient + this.counts.unclassified + this.counts.permanent;
  }

  get failures(): Readonly<Record<InsertErrorClass, number>> {
    return { ...this.counts };
  }

  /** Records a failed attempt and decides what to do next. */
  fail(error: unknown): RetryDecision & { readonly errorClass: InsertErrorClass } {
    const errorClass = classifyInsertError(error);
    this.counts[errorClass] += 1;
    return { ...decideRetry(errorClass, this.counts, this.policy), errorClass };
  }
}
