import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { keeperRole } from './health.ts';

let server: Server | undefined;
afterEach(() => server?.close());

/** A stand-in for a Keeper member that answers `srvr` with `reply` (or stays silent). */
async function member(reply: string | undefined): Promise<string> {
  server = createServer((socket) => {
    socket.once('data', () => {
      if (reply !== undefined) socket.end(reply);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('keeperRole', () => {
  it.each(['leader', 'follower', 'standalone'] as const)('reads Mode: %s from srvr', async (mode) => {
    expect(
      await keeperRole(await member(`Zookeeper version: 3.8.0\nLatency min/avg/max: 0/0/1\nMode: ${mode}\n`)),
    ).toBe(mode);
  });

  it('calls a member that answers nothing, or no mode, unreachable', async () => {
    expect(await keeperRole(await member(undefined), 200)).toBe('unreachable');
    server?.close();
    expect(await keeperRole(await member('This ZooKeeper instance is not currently serving requests\n'))).toBe(
      'unreachable',
    );
    expect(await keeperRole('127.0.0.1:1')).toBe('unreachable');
  });
});
