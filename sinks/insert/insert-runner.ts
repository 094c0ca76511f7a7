import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { InsertAttempt, SinkMessage } from '../api.ts';
import type { BatchToken, DedupToken } from '../domain/batch-token.ts';
import type { ShardName } from '../domain/shard-name.ts';
import type { EndpointRotation } from '../endpoints/endpoint-rotation.ts';
import { InsertGaveUpError } from '../retry/insert-give-up.ts';
import { InsertAttempts, type RetryPolicy } from '../retry/retry-policy.ts';
import { UNSHARDED_TARGET, type TargetSlot } from '../topology/topology-guard.ts';
import { insertQueryId } from './query-id.ts';
import type { AttemptReport, InsertRequest } from './send-attempt.ts';

/** One INSERT: rows of one batch (or epoch, or message group) for one target slot. */
export interface InsertJob {
  readonly slot: TargetSlot;
  readonly batch: number;
  readonly batchToken?: BatchToken;
  readonly dedupToken?: DedupToken;
  readonly messages: readonly SinkMessage[];
}

export interface InsertTransport {
  rotation(slot: TargetSlot): EndpointRotation;
  send(slot: TargetSlot, host: string, request: InsertRequest, attempt: InsertAttempt): Promise<AttemptReport>;
}

export interface InsertRunContext {
  readonly sink: string;
  readonly partition: number;
  readonly port: number;
  readonly policy: RetryPolicy;
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** Injected by tests; default an abortable timer. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface InsertRunOptions {
  /**
   * Whether a failed attempt may be retried at all (at-most-once: only if the INSERT never
   * started). When it says no, the run ends undelivered instead of retrying.
   */
  readonly mayRetry?: (report: AttemptReport) => boolean;
}

export type InsertRunResult =
  | { readonly delivered: true; readonly attempts: number }
  | { readonly delivered: false; readonly attempts: number; readonly last: AttemptReport };

const abortableDelay = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal });

/**
 * Drives one INSERT to an end: attempt on the rotation's current endpoint; after a failure,
 * classify it (`InsertAttempts`): permanent gives up at once, transient retries without limit,
 * unclassified until `max_insert_attempts` attempts ended unclassified; each retry fails over to
 * the next endpoint of the slot and waits `retry_backoff` first. A give-up throws
 * `InsertGaveUpError` ("Giving up insert into ClickHouse").
 */
export async function runInsert(
  job: InsertJob,
  request: InsertRequest,
  transport: InsertTransport,
  context: InsertRunContext,
  options: InsertRunOptions = {},
): Promise<InsertRunResult> {
  const rotation = transport.rotation(job.slot);
  const attempts = new InsertAttempts(context.policy);
  const shard: ShardName | null = job.slot === UNSHARDED_TARGET ? null : job.slot;
  const sleep = context.sleep ?? abortableDelay;
  for (let number = 1; ; number += 1) {
    context.signal.throwIfAborted();
    const host = rotation.current();
    const attempt: InsertAttempt = {
      sink: context.sink,
      batch: job.batch,
      ...(job.batchToken === undefined ? {} : { batchToken: job.batchToken }),
      ...(job.dedupToken === undefined ? {} : { dedupToken: job.dedupToken }),
      shard,
      endpoint: `${host}:${context.port}`,
      queryId: insertQueryId({
        sink: context.sink,
        partition: context.partition,
        batch: job.batch,
        shard,
        attempt: number,
      }),
      messageIds: job.messages.map((message) => message.id),
      attempt: number,
    };
    const report = await transport.send(job.slot, host, request, attempt);
    if (report.result.outcome === 'ok') return { delivered: true, attempts: number };

    const decision = attempts.fail(report.error);
    const facts = {
      endpoint: attempt.endpoint,
      queryId: attempt.queryId,
      attempt: number,
      outcome: report.result.outcome,
      errorClass: decision.errorClass,
      error: report.result.error?.message,
    };
    if (options.mayRetry && !options.mayRetry(report)) return { delivered: false, attempts: number, last: report };
    if (decision.action === 'give-up') {
      context.log.error({ ...facts, reason: decision.reason }, 'Giving up insert into ClickHouse');
      throw new InsertGaveUpError(
        {
          errorClass: decision.errorClass,
          reason: decision.reason,
          attempts: number,
          ...(job.dedupToken === undefined ? {} : { dedupToken: job.dedupToken }),
          ...(shard === null ? {} : { shard }),
        },
        report.error,
      );
    }
    context.log.warn(
      { ...facts, delayMs: decision.delayMs, next: rotation.failover() },
      'insert attempt failed; retrying',
    );
    await sleep(decision.delayMs, context.signal).catch((error: unknown) => {
      // Closing the sink aborts the wait: surface the close reason, not the timer's AbortError.
      context.signal.throwIfAborted();
      throw error;
    });
  }
}
