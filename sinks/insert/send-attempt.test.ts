import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InsertAttempt, InsertResult } from '../api.ts';
import { messageId } from '../domain/message-id.ts';
import { EndpointClient } from '../session/endpoint-client.ts';
import { endpointOf } from '../session/endpoint.ts';
import type { StaticParameters } from '../spec/sink-spec.ts';
import { sendAttempt } from './send-attempt.ts';

// A stand-in for ClickHouse's HTTP interface whose behaviour each test picks by the path of the
// query it receives, so the whole client stack (agent, request, response parsing) runs for real.
type Behaviour = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void;
const behaviours: Record<string, Behaviour> = {
  ok: (_, response) => response.end(),
  exception: (_, response) => {
    response.writeHead(500, { 'X-ClickHouse-Exception-Code': '16' });
    response.end('Code: 16. DB::Exception: No such column nope in table db.t. (NO_SUCH_COLUMN_IN_TABLE)\n');
  },
  unknownStatus: (_, response) => {
    response.writeHead(500, { 'X-ClickHouse-Exception-Code': '319' });
    response.end('Code: 319. DB::Exception: Unknown status, client must retry. (UNKNOWN_STATUS_OF_INSERT)\n');
  },
  // ClickHouse #65117: the server timed out reading the body and still answered 200, the error
  // only in the exception header (and the body).
  exceptionIn200: (_, response) => {
    response.writeHead(200, { 'X-ClickHouse-Exception-Code': '209' });
    response.end('Code: 209. DB::Exception: Timeout exceeded while reading from socket. (SOCKET_TIMEOUT)\n');
  },
  badGateway: (_, response) => {
    response.writeHead(502);
    response.end('Bad Gateway');
  },
  resetAfterBody: (request) => request.socket.resetAndDestroy(),
  silent: () => undefined,
};
const received: { queryId: string | null; body: Buffer }[] = [];
/** Query id -> what its socket had carried when the request ended (keep-alive is off: one request per socket). */
const socketBytes = new Map<string, number>();
let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://x').searchParams;
    if (query.get('query') === 'ANSWER_THEN_READ') {
      // Answers at once and only then takes the body: the request's `finish` comes after the response.
      response.writeHead(500, { 'X-ClickHouse-Exception-Code': '241' });
      response.end('Code: 241. DB::Exception: Memory limit exceeded. (MEMORY_LIMIT_EXCEEDED)\n');
      request.resume();
      return;
    }
    if (query.get('query') === 'EARLY') {
      // Answers before reading the body, like ClickHouse refusing a user before the data.
      response.writeHead(500, { 'X-ClickHouse-Exception-Code': '516', Connection: 'close' });
      response.end('Code: 516. DB::Exception: default: Authentication failed. (AUTHENTICATION_FAILED)\n');
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ queryId: query.get('query_id'), body });
      socketBytes.set(query.get('query_id') ?? '', request.socket.bytesRead);
      behaviours[query.get('query') ?? 'ok']?.(request, response, body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
});

const parameters = {
  user: 'default',
  password_env_var: '',
  database: 'db',
  codec: 'lz4',
  port: 8123,
} as StaticParameters;
const client = (targetPort: number) =>
  new EndpointClient(
    endpointOf('ch', 8123, () => ({ host: '127.0.0.1', port: targetPort })),
    { parameters, env: {}, writeTimeoutMs: 400, tls: undefined },
  );

async function attemptWith(statement: string, targetPort = port, body = Buffer.from('rowbinary')) {
  const events: string[] = [];
  const results: InsertResult[] = [];
  const sentBytes: number[] = [];
  const attempt: InsertAttempt = {
    sink: 's',
    batch: 1,
    shard: null,
    endpoint: 'ch:8123',
    queryId: `q-${Math.random()}`,
    messageIds: [messageId('1-0-1')],
    attempt: 1,
  };
  const endpoint = client(targetPort);
  const report = await sendAttempt(endpoint, { statement, body, settings: {} }, attempt, {
    beforeInsert: () => void events.push('before'),
    insertSent: async (_, sent) => {
      sentBytes.push(sent.bytes);
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push('sent');
    },
    afterInsert: (_, result) => {
      events.push(`after:${result.outcome}`);
      results.push(result);
    },
  });
  await endpoint.close();
  return { report, events, result: results[0], attempt, sentBytes: sentBytes[0] };
}

describe('sendAttempt against an HTTP server', () => {
  it('ok: the body and query id reach the server; hooks run before, sent, after', async () => {
    const { report, events, attempt } = await attemptWith('ok');
    expect(report).toMatchObject({ result: { outcome: 'ok' }, started: true });
    expect(events).toEqual(['before', 'sent', 'after:ok']);
    expect(received.at(-1)).toEqual({ queryId: attempt.queryId, body: Buffer.from('rowbinary') });
  });

  it('insertSent hears what the request put on its socket: request line, headers and body, as the server read them', async () => {
    const body = Buffer.alloc(5000, 7);
    const { attempt, sentBytes } = await attemptWith('ok', port, body);
    expect(sentBytes).toBeGreaterThan(body.length);
    expect(sentBytes).toBe(socketBytes.get(attempt.queryId));
  });

  it('a ClickHouse exception is failed (the server answered: nothing committed), after the INSERT started', async () => {
    const { report, events, result } = await attemptWith('exception');
    expect(report).toMatchObject({ result: { outcome: 'failed' }, started: true });
    expect(result?.error).toMatchObject({
      code: '16',
      class: 'unclassified',
      message: expect.stringContaining('No such column'),
    });
    expect(events).toEqual(['before', 'sent', 'after:failed']);
  });

  it('a 200 that carries X-ClickHouse-Exception-Code is never ok (ClickHouse #65117)', async () => {
    const { report, result } = await attemptWith('exceptionIn200');
    expect(report.result.outcome).toBe('failed');
    expect(result?.error).toMatchObject({ code: '209', class: 'transient' });
  });

  it('UNKNOWN_STATUS_OF_INSERT and a non-ClickHouse 502 are unknown', async () => {
    expect((await attemptWith('unknownStatus')).report.result.outcome).toBe('unknown');
    expect((await attemptWith('badGateway')).report.result.outcome).toBe('unknown');
  });

  it('a reset after the body was received is unknown', async () => {
    const { report, events } = await attemptWith('resetAfterBody');
    expect(report).toMatchObject({ result: { outcome: 'unknown', error: { class: 'transient' } }, started: true });
    expect(events).toEqual(['before', 'sent', 'after:unknown']);
  });

  it('no answer within write_timeout is unknown', async () => {
    const { report, events } = await attemptWith('silent');
    expect(report).toMatchObject({
      result: { outcome: 'unknown', error: { message: 'Timeout error.', class: 'transient', timedOut: true } },
      started: true,
    });
    expect(events).toEqual(['before', 'sent', 'after:unknown']);
  });

  it('a refused connection is failed, never started, and never reports the body as sent', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as AddressInfo).port;
    closed.close();
    const { report, events } = await attemptWith('ok', closedPort);
    expect(report).toMatchObject({
      result: { outcome: 'failed', error: { code: 'ECONNREFUSED', class: 'transient' } },
      started: false,
    });
    expect(events).toEqual(['before', 'after:failed']);
  });

  it('an answer before the body was sent is failed, and the body sent afterwards never reports insertSent', async () => {
    const { report, events } = await attemptWith('ANSWER_THEN_READ', port, Buffer.alloc(8 * 1024 * 1024, 1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(report).toMatchObject({
      result: { outcome: 'failed', error: { code: '241', class: 'unclassified' } },
      started: true,
    });
    expect(events).toEqual(['before', 'after:failed']);
  });

  it('an answer before the body was taken is failed, without insertSent', async () => {
    const { report, events } = await attemptWith('EARLY', port, Buffer.alloc(32 * 1024 * 1024, 1));
    expect(report).toMatchObject({ result: { outcome: 'failed', error: { code: '516' } }, started: true });
    expect(events).toEqual(['before', 'after:failed']);
  });
});
