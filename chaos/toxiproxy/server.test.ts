import { Toxiproxy } from 'toxiproxy-node-client';
import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../harness/base/index.ts';
import { startToxiproxyServer } from './index.ts';
import { connectOutcome, connectPeer, Upstream } from './test-support.ts';

describe('startToxiproxyServer', () => {
  it('reports its url, host, port and seed, and disposes with await using', async () => {
    let url = '';
    {
      await using server = await startToxiproxyServer({ port: 0, seed: 42 });
      url = server.url;
      expect(server.host).toBe('127.0.0.1');
      expect(server.port).toBeGreaterThan(0);
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect(server.seed).toBe(42);
      expect(JSON.parse(await new Toxiproxy(server.url).getVersion())).toEqual({ version: '2.12.0' });
    }
    expect(await connectOutcome(url.replace('http://', ''))).toBe('ECONNREFUSED');
  });

  it('creates the proxies of `config` at start', async () => {
    await using upstream = await Upstream.start({ echo: true });
    await using server = await startToxiproxyServer({
      port: 0,
      config: [
        { name: 'echo', listen: '127.0.0.1:0', upstream: upstream.address },
        { name: 'off', listen: '127.0.0.1:0', upstream: upstream.address, enabled: false },
      ],
    });
    const proxies = await new Toxiproxy(server.url).getAll();
    expect(Object.keys(proxies)).toEqual(['echo', 'off']);
    expect(proxies.off?.enabled).toBe(false);
    await using client = await connectPeer(proxies.echo?.listen ?? '');
    client.write('hi');
    expect((await client.waitForBytes(2)).data.toString()).toBe('hi');
  });

  it('fails with TOXIPROXY_PORT_IN_USE when the API port is taken', async () => {
    await using first = await startToxiproxyServer({ port: 0 });
    const error = await startToxiproxyServer({ port: first.port }).catch((caught: unknown) => caught);
    expect(isHarnessError(error, 'TOXIPROXY_PORT_IN_USE')).toBe(true);
    expect((error as Error).message).toContain(`127.0.0.1:${first.port}`);
  });

  it('fails with TOXIPROXY_CONFIG_REJECTED on a bad config and leaves nothing listening', async () => {
    const nameless = await startToxiproxyServer({
      port: 0,
      config: [{ name: '', listen: '127.0.0.1:0', upstream: 'x:1' }],
    }).catch((caught: unknown) => caught);
    expect(isHarnessError(nameless, 'TOXIPROXY_CONFIG_REJECTED')).toBe(true);
    expect((nameless as Error).message).toContain('missing required field: name');

    const probe = await Upstream.start();
    const freed = probe.address;
    await probe[Symbol.asyncDispose]();
    const config = [
      { name: 'first', listen: freed, upstream: 'x:1' },
      { name: 'second', listen: 'local373', upstream: 'x:1' },
    ];
    const unbindable = await startToxiproxyServer({ port: 0, config }).catch((caught: unknown) => caught);
    expect(isHarnessError(unbindable, 'TOXIPROXY_CONFIG_REJECTED')).toBe(true);
    expect(await connectOutcome(freed)).toBe('ECONNREFUSED');
  });

  it('stop() may be called twice', async () => {
    const server = await startToxiproxyServer({ port: 0 });
    await server.stop();
    await server.stop();
    expect(await connectOutcome(`127.0.0.1:${server.port}`)).toBe('ECONNREFUSED');
  });
});
