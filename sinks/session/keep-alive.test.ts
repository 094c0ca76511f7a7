import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InsertAttempt } from '../api.ts';
import { messageId } from '../domain/message-id.ts';
import { sendAttempt } from '../insert/send-attempt.ts';
import type { StaticParameters } from '../spec/sink-spec.ts';
import { EndpointClient } from './endpoint-client.ts';
import { endpointOf } from './endpoint.ts';

// The keep-alive race (clickhouse-js #150, #294): a pooled socket idle for about the server's
// keep_alive_timeout is closed by the server just as the next INSERT is written on it, and the
// first send meets a closed socket — an unknown outcome although nothing ran. This server offers
// keep-alive (5 s) but closes a connection the moment a second request arrives on it, the race
// at its worst: a client that reuses sockets loses that INSERT's outcome. The sinks never reuse
// one, so every INSERT must come on a connection of its own and end `ok`.
const PAUSE_MS = 100;
let server: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  const served = new WeakMap<object, number>();
  server = createServer((request, response) => {
    const count = (served.get(request.socket) ?? 0) + 1;
    served.set(request.socket, count);
    if (count > 1) {
      request.socket.destroy();
      return;
    }
    request.resume();
    request.on('end', () => response.end());
  });
  server.keepAliveTimeout = 5000;
  server.on('connection', () => (connections += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(() => {
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

describe('one endpoint client across idle pauses', () => {
  it('opens a fresh connection for every INSERT, so none is written on a socket the server closed', async () => {
    const client = new EndpointClient(
      endpointOf('ch', 8123, () => ({ host: '127.0.0.1', port })),
      { parameters, env: {}, writeTimeoutMs: 2000, tls: undefined },
    );
    const attempt = (n: number): InsertAttempt => ({
      sink: 's',
      batch: n,
      shard: null,
      endpoint: 'ch:8123',
      queryId: `keep-alive-${n}`,
      messageIds: [messageId(`1-0-${n}`)],
      attempt: 1,
    });
    const hooks = { beforeInsert: () => undefined, insertSent: async () => undefined, afterInsert: () => undefined };
    const outcomes = [];
    try {
      for (const [n, pauseMs] of [
        [1, 0],
        [2, PAUSE_MS],
        [3, PAUSE_MS],
        [4, 0],
      ] as const) {
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
        const { result } = await sendAttempt(
          client,
          { statement: 'ok', body: Buffer.from('x'), settings: {} },
          attempt(n),
          hooks,
        );
        outcomes.push(result.outcome);
      }
    } finally {
      await client.close();
    }
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(connections).toBe(4);
  });
});
