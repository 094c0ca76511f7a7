import { ClickHouseError } from '@clickhouse/client';
import type { InsertOutcome } from '../api.ts';
import { clickHouseCodeOf } from '../retry/error-classification.ts';
import type { RequestTrace } from '../session/request-trace.ts';

/** How a failed attempt ended: the history's outcome and whether the INSERT started. */
export interface FailedAttemptOutcome {
  readonly outcome: Exclude<InsertOutcome, 'ok'>;
  /** Request bytes may have reached the server (at-most-once never re-sends such a message). */
  readonly started: boolean;
}

/** ClickHouse's own "I do not know whether the insert committed" (e.g. Keeper lost during commit). */
const UNKNOWN_STATUS_CODES = new Set([319]);

/**
 * The outcome of a failed INSERT attempt, from what the wire showed:
 * - ClickHouse answered with an exception (`X-ClickHouse-Exception-Code`, or a parsed
 *   `ClickHouseError` from the response): `failed`, the query did not commit; except
 *   319 UNKNOWN_STATUS_OF_INSERT: `unknown`;
 * - an HTTP response that is not a ClickHouse exception (a proxy's 502, a success whose body
 *   broke off): `unknown`, something in between may have run the INSERT;
 * - no connection ever (refused, DNS, connect timeout, TLS handshake refused): `failed`, no byte
 *   of the request reached a server;
 * - connected, then reset / hang up / timeout / abort without an answer: `unknown`, whether or
 *   not the whole body was sent (a partial body may still be a complete block to the server).
 */
export function failedAttemptOutcome(error: unknown, trace: RequestTrace): FailedAttemptOutcome {
  if (trace.responseStatus !== undefined) {
    const fromServer = trace.exceptionCode !== undefined || error instanceof ClickHouseError;
    if (!fromServer) return { outcome: 'unknown', started: true };
    const code = trace.exceptionCode !== undefined ? Number(trace.exceptionCode) : clickHouseCodeOf(error);
    return { outcome: code !== undefined && UNKNOWN_STATUS_CODES.has(code) ? 'unknown' : 'failed', started: true };
  }
  if (!trace.connected) return { outcome: 'failed', started: false };
  return { outcome: 'unknown', started: true };
}
