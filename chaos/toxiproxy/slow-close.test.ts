import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { addToxic, connectThrough, proxyTo, startTestServer, Upstream } from './test-support.ts';

describe('slow_close toxic', () => {
  it('passes data at once but delays the close by `delay` ms', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { type: 'slow_close', attributes: { delay: 300 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const start = performance.now();
    serverSide.socket.end('goodbye');
    const data = await client.waitForBytes(7);
    expect(data.at - start).toBeLessThan(100);
    const closed = await client.waitClosed(2_000);
    expect(closed.at - start).toBeGreaterThanOrEqual(295);
    expect(closed.at - start).toBeLessThan(600);
    expect(closed.code).toBeUndefined();
  });

  it('closes at once when the toxic is removed while the close is held back', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    const toxic = await addToxic(proxy, { type: 'slow_close', attributes: { delay: 10_000 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    serverSide.socket.end('bye');
    await client.waitForBytes(3);
    await toxic.remove();
    await client.waitClosed(1_000);
  });
});
