import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startToxiproxyServer } from '../toxiproxy/index.ts';
import { Upstream } from '../toxiproxy/test-support.ts';
import { FaultProxyClient } from './fault-proxy-client.ts';
import { ensureProxiesClean, healProxies } from './heal-proxies.ts';

const toxic = (name: string) => ({
  name,
  type: 'latency',
  stream: 'downstream' as const,
  toxicity: 1,
  attributes: { latency: 100, jitter: 0 },
});

/** A Toxiproxy API that answers every call with `handler`'s status and body (or never). */
async function fakeApi(handler: (method: string, path: string) => [number, unknown] | 'never') {
  const server: Server = createServer((request, response) => {
    const answer = handler(request.method ?? '', request.url ?? '');
    if (answer === 'never') return;
    response.writeHead(answer[0], { 'content-type': 'application/json' });
    response.end(answer[1] === undefined ? '' : JSON.stringify(answer[1]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const dirtyProxy = {
  name: 'p',
  listen: '127.0.0.1:1',
  upstream: '127.0.0.1:2',
  enabled: true,
  toxics: [toxic('slow')],
};

describe('healProxies', () => {
  it('clears and enables the named proxies and leaves every other proxy as it was', async () => {
    await using upstream = await Upstream.start({ echo: true });
    await using server = await startToxiproxyServer({
      port: 0,
      config: ['ours_a', 'ours_b', 'theirs'].map((name) => ({
        name,
        listen: '127.0.0.1:0',
        upstream: upstream.address,
      })),
    });
    const client = new FaultProxyClient(server.url);
    for (const name of ['ours_a', 'theirs']) await client.addToxic(name, toxic('slow'));
    await client.setEnabled('ours_b', false);

    await healProxies(client, ['ours_a', 'ours_b']);

    expect(await client.proxy('ours_a')).toMatchObject({ enabled: true, toxics: [] });
    expect(await client.proxy('ours_b')).toMatchObject({ enabled: true, toxics: [] });
    expect((await client.proxy('theirs')).toxics.map((t) => t.name)).toEqual(['slow']);
  });

  it.each([404, 500])('fails when the fault proxy answers %i: a heal is never assumed', async (status) => {
    await using api = await fakeApi((method) =>
      method === 'GET' ? [200, dirtyProxy] : [status, { error: 'broken', status }],
    );
    await expect(healProxies(new FaultProxyClient(api.url), ['p'])).rejects.toThrow(
      new RegExp(`answered ${status} to removing toxic slow from proxy p`),
    );
  });

  it('fails within its deadline when the fault proxy never answers', async () => {
    await using api = await fakeApi(() => 'never');
    const started = Date.now();
    await expect(healProxies(new FaultProxyClient(api.url, 300), ['p'])).rejects.toMatchObject({
      code: 'FAULT_PROXY_TIMEOUT',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('ensureProxiesClean', () => {
  it('heals a leftover fault once before a run and says what it found', async () => {
    await using upstream = await Upstream.start({ echo: true });
    await using server = await startToxiproxyServer({
      port: 0,
      config: ['a', 'b'].map((name) => ({ name, listen: '127.0.0.1:0', upstream: upstream.address })),
    });
    const client = new FaultProxyClient(server.url);
    await client.addToxic('a', toxic('left'));
    await client.setEnabled('b', false);
    expect(await ensureProxiesClean(client, ['a', 'b'], true)).toEqual([
      'a: toxic left (latency, downstream)',
      'b: disabled',
    ]);
    expect(await ensureProxiesClean(client, ['a', 'b'], true)).toEqual([]);
  });

  it('on an attached cluster, refuses the run and leaves a fault it did not make in place', async () => {
    await using upstream = await Upstream.start({ echo: true });
    await using server = await startToxiproxyServer({
      port: 0,
      config: [{ name: 'a', listen: '127.0.0.1:0', upstream: upstream.address }],
    });
    const client = new FaultProxyClient(server.url);
    await client.addToxic('a', toxic('someone_elses'));
    await expect(ensureProxiesClean(client, ['a'], false)).rejects.toMatchObject({ code: 'CHAOS_PROXIES_NOT_OURS' });
    expect((await client.proxy('a')).toxics.map((each) => each.name)).toEqual(['someone_elses']);
  });

  it('refuses the run when a proxy is still faulted after the heal', async () => {
    // A fault proxy that takes every heal and changes nothing: something else keeps the proxy faulted.
    await using api = await fakeApi((method, path) =>
      method !== 'GET' ? [204, undefined] : [200, path === '/proxies' ? { p: dirtyProxy } : dirtyProxy],
    );
    await expect(ensureProxiesClean(new FaultProxyClient(api.url), ['p'], true)).rejects.toMatchObject({
      code: 'CHAOS_PROXIES_DIRTY',
    });
  });
});
