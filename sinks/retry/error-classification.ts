import { hasErrorCode } from '../errors.ts';
import { TRANSIENT_CLICKHOUSE_CODES } from './clickhouse-error-codes.ts';

/**
 * The seed's three classes. transient: network, protocol and timeouts, retried without limit;
 * permanent: validation (the sink's own schema and value checks, a TLS configuration the server
 * cannot satisfy), never retried; unclassified: everything else, server errors included, at
 * most `max_insert_attempts` attempts in total.
 */
export type InsertErrorClass = 'transient' | 'unclassified' | 'permanent';

/** Node socket and DNS error codes. DNS failures count as transient: session start already proved the host resolvable. */
const TRANSIENT_NODE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'ABORT_ERR',
]);

/** TLS verification failures are configuration: a retry meets the same certificate. */
const PERMANENT_NODE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** @clickhouse/client's error when a request's own timeout (`write_timeout`) fired. */
const REQUEST_TIMEOUT = /^Timeout error\.?$/i;

/** Whether the client gave up on the request at its own timeout, rather than the server or the link ending it. */
export const isRequestTimeout = (error: unknown): boolean =>
  error instanceof Error && REQUEST_TIMEOUT.test(error.message);

/** Messages of @clickhouse/client and Node that carry no code: request timeout, abort, reset. */
const TRANSIENT_MESSAGES = [
  REQUEST_TIMEOUT,
  /aborted a request/i,
  /socket hang up/i,
  /\bECONNRESET\b|\bECONNREFUSED\b|\bEPIPE\b|\bETIMEDOUT\b/,
];

/** Our own validation errors: the same input fails the same way on every attempt. */
const PERMANENT_HARNESS_CODES = ['SINK_SCHEMA_INVALID', 'SINK_VALUE_INVALID'];

/**
 * Classifies a failed insert. A ClickHouse code (`ClickHouseError.code`, or `Code: N` in a
 * message) decides first, since the server saw the request; otherwise Node's error code or a
 * known client message; `cause` chains are followed.
 */
export function classifyInsertError(error: unknown): InsertErrorClass {
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 8; depth += 1) {
    if (PERMANENT_HARNESS_CODES.some((code) => hasErrorCode(current, code))) return 'permanent';
    const serverCode = clickHouseCodeOf(current);
    if (serverCode !== undefined) return classifyClickHouseCode(serverCode);
    const nodeCode = stringField(current, 'code');
    if (nodeCode !== undefined && TRANSIENT_NODE_CODES.has(nodeCode)) return 'transient';
    if (nodeCode !== undefined && PERMANENT_NODE_CODES.has(nodeCode)) return 'permanent';
    if (stringField(current, 'name') === 'AbortError' || stringField(current, 'name') === 'TimeoutError')
      return 'transient';
    const message = stringField(current, 'message');
    if (message !== undefined && TRANSIENT_MESSAGES.some((pattern) => pattern.test(message))) return 'transient';
    current = (current as { cause?: unknown }).cause;
  }
  return 'unclassified';
}

/** A server error is transient when it reports the transport or a timeout; otherwise it cannot be proven so. */
export function classifyClickHouseCode(code: number): InsertErrorClass {
  return Object.hasOwn(TRANSIENT_CLICKHOUSE_CODES, code) ? 'transient' : 'unclassified';
}

/** The server's error code: `ClickHouseError.code` is its decimal string; a raw message has `Code: N.`. */
export function clickHouseCodeOf(error: unknown): number | undefined {
  const code = stringField(error, 'code');
  if (code !== undefined && /^\d+$/.test(code)) return Number(code);
  const message = stringField(error, 'message') ?? (typeof error === 'string' ? error : undefined);
  const match = message === undefined ? null : /\bCode: (\d+)\b/.exec(message);
  return match ? Number(match[1]) : undefined;
}

function stringField(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === 'string' ? field : typeof field === 'number' && key === 'code' ? String(field) : undefined;
}
