import type { DynamicParameters } from '../spec/sink-spec.ts';
import { classifyInsertError, type InsertErrorClass } from './error-classification.ts';

export interface RetryPolicy {
  readonly maxInsertAttempts: number;
  readonly retryBackoffMs: number;
}

export function retryPolicyOf(dynamic: Pick<DynamicParameters, 'max_insert_attempts' | 'retry_backoff'>): RetryPolicy {
  return { maxInsertAttempts: dynamic.max_insert_attempts, retryBackoffMs: dynamic.retry_backoff };
}

export type RetryDecision =
  { readonly action: 'retry'; readonly delayMs: number } | { readonly action: 'give-up'; readonly reason: string };

/**
 * After a failed insert attempt (`attempts` counts every attempt so far, this one included): a
 * permanent error gives up at once; a transient one is retried after `retry_backoff`, without
 * limit; an unclassified one gives up once `max_insert_attempts` attempts have been made in
 * total, whatever their errors were, and is retried otherwise.
 */
export function decideRetry(errorClass: InsertErrorClass, attempts: number, policy: RetryPolicy): RetryDecision {
  if (errorClass === 'permanent') return { action: 'give-up', reason: 'permanent error, not retried' };
  if (errorClass === 'unclassified' && attempts >= policy.maxInsertAttempts) {
    return {
      action: 'give-up',
      reason: `unclassified error after ${attempts} attempt(s) in total (max_insert_attempts = ${policy.maxInsertAttempts})`,
    };
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
    return { ...decideRetry(errorClass, this.attempts, this.policy), errorClass };
  }
}
