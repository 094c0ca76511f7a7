import { ClickHouseError } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import type { RequestTrace } from '../session/request-trace.ts';
import { failedAttemptOutcome } from './attempt-outcome.ts';

const trace = (overrides: Partial<RequestTrace>): RequestTrace => ({ connected: false, bodySent: false, ...overrides });
const nodeError = (code: string, message = code) => Object.assign(new Error(message), { code });
const serverError = (code: number) =>
  new ClickHouseError({ message: `Code: ${code}. DB::Exception: x`, code: String(code), type: 'X' });

describe('failedAttemptOutcome', () => {
  it.each([
    ['connection refused', nodeError('ECONNREFUSED'), trace({}), 'failed', false],
    ['DNS failure', nodeError('ENOTFOUND'), trace({}), 'failed', false],
    ['connect timeout', new Error('Timeout error.'), trace({}), 'failed', false],
    ['TLS certificate refused', nodeError('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), trace({}), 'failed', false],
    [
      'a ClickHouse exception (header)',
      serverError(16),
      trace({ connected: true, bodySent: true, responseStatus: 500, exceptionCode: '16' }),
      'failed',
      true,
    ],
    [
      'a ClickHouse exception before the body was sent',
      serverError(516),
      trace({ connected: true, responseStatus: 403, exceptionCode: '516' }),
      'failed',
      true,
    ],
    [
      'a ClickHouse exception without the header',
      serverError(252),
      trace({ connected: true, bodySent: true, responseStatus: 500 }),
      'failed',
      true,
    ],
    [
      'UNKNOWN_STATUS_OF_INSERT',
      serverError(319),
      trace({ connected: true, bodySent: true, responseStatus: 500, exceptionCode: '319' }),
      'unknown',
      true,
    ],
    [
      'a non-ClickHouse HTTP error (proxy 502)',
      new Error('Bad Gateway'),
      trace({ connected: true, bodySent: true, responseStatus: 502 }),
      'unknown',
      true,
    ],
    [
      'reset after the body was sent',
      nodeError('ECONNRESET', 'read ECONNRESET'),
      trace({ connected: true, bodySent: true }),
      'unknown',
      true,
    ],
    ['reset while the body was being sent', nodeError('EPIPE'), trace({ connected: true }), 'unknown', true],
    [
      'socket hang up',
      nodeError('ECONNRESET', 'socket hang up'),
      trace({ connected: true, bodySent: true }),
      'unknown',
      true,
    ],
    [
      'request timeout after sending',
      new Error('Timeout error.'),
      trace({ connected: true, bodySent: true }),
      'unknown',
      true,
    ],
    [
      'abort after sending',
      new Error('The user aborted a request.'),
      trace({ connected: true, bodySent: true }),
      'unknown',
      true,
    ],
  ])('%s: %s', (_, error, wire, outcome, started) => {
    expect(failedAttemptOutcome(error, wire)).toEqual({ outcome, started });
  });
});
