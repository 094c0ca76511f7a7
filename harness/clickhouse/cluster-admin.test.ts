import type { ClickHouseClient } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../cluster/index.ts';
import { ClusterAdmin, type AdminClientFactory } from './cluster-admin.ts';

const replica = (name: string) => ({
  name,
  http: `http://${name}:8123`,
  direct_http: `http://${name}:8123`,
  tcp: `${name}:9000`,
  proxies: { client: '', keeper: '', keepers: [], interserver: '' },
});
const description = {
  credentials: { user: 'admin' },
  shards: [
    { name: 's1', replicas: [replica('s1r1'), replica('s1r2')] },
    { name: 's2', replicas: [replica('s2r1')] },
  ],
} as unknown as ClusterDescription;

/** Clients that record what was opened, closed and asked; `failOpening` makes that replica's client throw. */
function fakeClients(failOpening?: string) {
  const opened: string[] = [];
  const closed: string[] = [];
  const commands: string[] = [];
  const factory: AdminClientFactory = (url, options) => {
    const host = new URL(url).hostname;
    if (host === failOpening) throw new Error(`no client for ${host}`);
    expect(options.credentials).toEqual({ user: 'admin' });
    opened.push(host);
    return {
      command: async ({ query }: { query: string }) => {
        if (query === `fail on ${host}`) throw new Error(`${host} refused`);
        commands.push(`${host}: ${query}`);
      },
      close: async () => {
        closed.push(host);
      },
    } as unknown as ClickHouseClient;
  };
  return { factory, opened, closed, commands };
}

describe('ClusterAdmin', () => {
  it('runs a statement on every replica, directly and with the cluster credentials, and closes every client', async () => {
    const fake = fakeClients();
    await new ClusterAdmin(description, fake.factory).onEveryReplica('SYSTEM FLUSH LOGS');
    expect(fake.commands.sort()).toEqual([
      's1r1: SYSTEM FLUSH LOGS',
      's1r2: SYSTEM FLUSH LOGS',
      's2r1: SYSTEM FLUSH LOGS',
    ]);
    expect(fake.closed.sort()).toEqual(['s1r1', 's1r2', 's2r1']);
  });

  it('closes every client when the work fails on one replica', async () => {
    const fake = fakeClients();
    const admin = new ClusterAdmin(description, fake.factory);
    await expect(
      admin.withReplicas((replicas) =>
        Promise.all(replicas.map(({ client, replica: { name } }) => client.command({ query: `fail on ${name}` }))),
      ),
    ).rejects.toThrow('refused');
    expect(fake.closed.sort()).toEqual(['s1r1', 's1r2', 's2r1']);
  });

  it('closes the clients already made when a later one cannot be made', async () => {
    const fake = fakeClients('s2r1');
    await expect(new ClusterAdmin(description, fake.factory).onEveryReplica('SELECT 1')).rejects.toThrow(
      'no client for s2r1',
    );
    expect(fake.commands).toEqual([]);
    expect(fake.closed.sort()).toEqual(['s1r1', 's1r2']);
  });

  it('one replica at a time: each client closed before the next opens, also when the work fails', async () => {
    const fake = fakeClients();
    const seen: string[] = [];
    await expect(
      new ClusterAdmin(description, fake.factory).eachReplica(async ({ replica: { name }, client }) => {
        seen.push(`${name} open while ${fake.opened.filter((host) => !fake.closed.includes(host)).join(',')}`);
        await client.command({ query: name === 's1r2' ? 'fail on s1r2' : 'SELECT 1' });
      }),
    ).rejects.toThrow('s1r2 refused');
    expect(seen).toEqual(['s1r1 open while s1r1', 's1r2 open while s1r2']);
    expect(fake.opened).toEqual(['s1r1', 's1r2']);
    expect(fake.closed).toEqual(['s1r1', 's1r2']);
  });

  it('selects replicas by name, in the description order', async () => {
    const fake = fakeClients();
    const names = await new ClusterAdmin(description, fake.factory).withReplicas(
      async (replicas) => replicas.map(({ shard, replica: { name } }) => `${shard}/${name}`),
      { only: ['s2r1', 's1r1'] },
    );
    expect(names).toEqual(['s1/s1r1', 's2/s2r1']);
    expect(fake.closed.sort()).toEqual(['s1r1', 's2r1']);
  });
});
