import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { addToxic, connectThrough, proxyTo, sleep, startTestServer, Upstream } from './test-support.ts';

// Ports of toxics/timeout_test.go plus the timer rules of toxiproxy-compat.md.

describe('timeout toxic', () => {
  it('at 0 swallows data and never closes; removing it closes both sockets', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    client.write('foobar');
    await serverSide.waitForBytes(6);
    const toxic = await addToxic(proxy, {
      name: 'to_delete',
      type: 'timeout',
      stream: 'upstream',
      attributes: { timeout: 0 },
    });
    client.write('swallowed');
    await sleep(300);
    expect(serverSide.bytes.toString()).toBe('foobar');
    expect(client.isClosed).toBe(false);
    await toxic.remove();
    expect((await client.waitClosed(1_000)).code).toBeUndefined();
    await serverSide.waitClosed(1_000);
  });

  it('closes `timeout` ms after the last chunk, restarting the timer on every chunk', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { type: 'timeout', attributes: { timeout: 200 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const start = performance.now();
    for (let i = 0; i < 3; i += 1) {
      serverSide.write(`chunk ${i}`);
      await sleep(100);
    }
    const closed = await client.waitClosed(2_000);
    // Last chunk at ~200 ms, so the close comes at ~400 ms, not at 200 ms.
    expect(closed.at - start).toBeGreaterThanOrEqual(380);
    expect(closed.at - start).toBeLessThan(800);
    expect(client.bytes.length).toBe(0);
    await serverSide.waitClosed(1_000);
  });

  it('is cleared by /reset, which closes the connections it held', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { type: 'timeout', stream: 'upstream', attributes: { timeout: 0 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    client.write('lost');
    await sleep(50);
    expect(client.isClosed).toBe(false);
    await server.client.reset();
    await client.waitClosed(1_000);
    await serverSide.waitClosed(1_000);
    expect(serverSide.bytes.length).toBe(0);
  });

  it('does not hang the removal of a latency toxic in front of it', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const latency = await addToxic(proxy, {
      name: 'might_block',
      type: 'latency',
      stream: 'upstream',
      attributes: { latency: 10 },
    });
    await addToxic(proxy, { name: 'timeout', type: 'timeout', stream: 'upstream', attributes: { timeout: 0 } });
    for (let i = 0; i < 5; i += 1) {
      client.write('hello');
      await sleep(50);
    }
    const start = performance.now();
    await latency.remove();
    expect(performance.now() - start).toBeLessThan(1_000);
    expect(serverSide.bytes.length).toBe(0);
    expect(client.isClosed).toBe(false);
  });
});
