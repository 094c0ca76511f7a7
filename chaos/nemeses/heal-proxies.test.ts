import { Toxiproxy } from 'toxiproxy-node-client';
import { describe, expect, it } from 'vitest';
import { startToxiproxyServer } from '../toxiproxy/index.ts';
import { Upstream } from '../toxiproxy/test-support.ts';
import { healProxies } from './heal-proxies.ts';

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
    const toxiproxy = new Toxiproxy(server.url);
    for (const name of ['ours_a', 'theirs'])
      await (
        await toxiproxy.get(name)
      ).addToxic({
        name: 'slow',
        type: 'latency',
        stream: 'downstream',
        toxicity: 1,
        attributes: { latency: 100, jitter: 0 },
      });
    await (
      await toxiproxy.get('ours_b')
    ).update({ enabled: false, listen: (await toxiproxy.get('ours_b')).listen, upstream: upstream.address });

    await healProxies(server.url, ['ours_a', 'ours_b']);

    const state = async (name: string) =>
      (await (await fetch(`${server.url}/proxies/${name}`)).json()) as { enabled: boolean; toxics: { name: string }[] };
    expect(await state('ours_a')).toMatchObject({ enabled: true, toxics: [] });
    expect(await state('ours_b')).toMatchObject({ enabled: true, toxics: [] });
    expect((await state('theirs')).toxics.map((toxic) => toxic.name)).toEqual(['slow']);
  });
});
