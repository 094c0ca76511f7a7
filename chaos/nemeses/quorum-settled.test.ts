import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplicaDescription } from '../../harness/cluster/index.ts';
import type { Fault, FaultWindow, NemesisContext } from './fault.ts';
import { quorumSettled } from './quorum-settled.ts';
import { FakeCluster } from './test-support.ts';

/** A ClickHouse HTTP endpoint that knows one replicated table and records every statement it gets, in order. */
function fakeReplica(seen: string[]): Server {
  return createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const statement = `${new URL(request.url ?? '/', 'http://x').searchParams.get('query') ?? ''}${body}`.trim();
      seen.push(statement);
      response.end(statement.startsWith('SELECT name FROM system.tables') ? '{"name":"events_rep"}\n' : '');
    });
  });
}

describe('a quorum fault that waits for its shard to settle', () => {
  const seen: string[] = [];
  const server = fakeReplica(seen);
  let replica: ReplicaDescription;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    replica = { name: 's1r2', direct_http: `http://127.0.0.1:${port}` } as ReplicaDescription;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('heals the fault first, then syncs every replicated table of the run on every replica of the shard', async () => {
    const inner: Fault = {
      type: 'replica_pause',
      targets: ['s1r2'],
      effect: 'blocked',
      apply: async () => ({ type: 'replica_pause', description: 'pause(s1r2)', targets: ['s1r2'], appliedAt: 1 }),
      heal: async () => void seen.push('inner heal'),
      toString: () => 'pause(s1r2)',
    };
    const fault = quorumSettled(inner, [replica, replica]);
    const context = {
      cluster: new FakeCluster([]),
      database: 'chaos_run',
      log: pino({ level: 'silent' }),
    } as unknown as NemesisContext;
    expect([fault.type, fault.targets, fault.effect, fault.toString()]).toEqual([
      'replica_pause',
      ['s1r2'],
      'blocked',
      'pause(s1r2)',
    ]);
    await fault.heal(context, {} as FaultWindow);
    expect(seen[0]).toBe('inner heal');
    expect(seen.filter((statement) => statement === 'SYSTEM SYNC REPLICA `chaos_run`.`events_rep`')).toHaveLength(2);
  });
});
