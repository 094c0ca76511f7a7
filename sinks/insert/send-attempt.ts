import { Readable } from 'node:stream';
import type { ClickHouseSettings } from '@clickhouse/client';
import type { InsertAttempt, InsertObserver, InsertResult } from '../api.ts';
import { classifyInsertError, clickHouseCodeOf, isRequestTimeout } from '../retry/error-classification.ts';
import type { EndpointClient } from '../session/endpoint-client.ts';
import { failedAttemptOutcome } from './attempt-outcome.ts';

export interface InsertRequest {
  readonly statement: string;
  /** The RowBinary body, encoded once per INSERT and re-sent as is on every attempt. */
  readonly body: Buffer;
  readonly settings: ClickHouseSettings;
}

export interface AttemptReport {
  readonly result: InsertResult;
  /** Request bytes may have reached the server. */
  readonly started: boolean;
  /** The failure, when the outcome is not `ok`. */
  readonly error?: unknown;
}

/**
 * One INSERT attempt on one endpoint with the observer's hooks: `beforeInsert` before anything
 * is sent; `insertSent` when the whole body has been handed to the socket and no answer has come
 * yet (so at most once, and never for an attempt that failed to connect); `afterInsert` with the
 * outcome once the attempt ended, after `insertSent` finished.
 */
export async function sendAttempt(
  endpoint: EndpointClient,
  request: InsertRequest,
  attempt: InsertAttempt,
  observer: InsertObserver,
): Promise<AttemptReport> {
  await observer.beforeInsert?.(attempt);
  let sentHook: Promise<void> | undefined;
  const watch = endpoint.tracer.watch(attempt.queryId, (bytes) => {
    sentHook = (async () => observer.insertSent?.(attempt, { bytes }))();
    // Awaited below, once the attempt ended; this only keeps an early rejection from being reported as unhandled.
    sentHook.catch(() => undefined);
  });
  const startedAt = Date.now();
  let report: AttemptReport;
  try {
    await endpoint.use(async (client) => {
      const result = await client.exec({
        query: request.statement,
        values: Readable.from([request.body]),
        query_id: attempt.queryId,
        clickhouse_settings: request.settings,
      });
      // Insert responses are empty; reading to the end completes the request.
      for await (const _ of result.stream) void _;
    });
    report = { result: { outcome: 'ok', startedAt, endedAt: Date.now() }, started: true };
  } catch (error) {
    const { outcome, started } = failedAttemptOutcome(error, watch.trace);
    report = { result: { outcome, startedAt, endedAt: Date.now(), error: describeFailure(error) }, started, error };
  } finally {
    watch.release();
  }
  await sentHook;
  await observer.afterInsert?.(attempt, report.result);
  return report;
}

function describeFailure(error: unknown): NonNullable<InsertResult['error']> {
  const message = error instanceof Error ? error.message : String(error);
  const serverCode = clickHouseCodeOf(error);
  const nodeCode = (error as { code?: unknown } | null)?.code;
  const code = serverCode !== undefined ? String(serverCode) : typeof nodeCode === 'string' ? nodeCode : undefined;
  return {
    message: message.split('\n')[0] ?? message,
    ...(code === undefined ? {} : { code }),
    class: classifyInsertError(error),
    ...(isRequestTimeout(error) ? { timedOut: true as const } : {}),
  };
}
