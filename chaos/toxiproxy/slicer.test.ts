import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { addToxic, connectThrough, proxyTo, startTestServer, Upstream } from './test-support.ts';

// Port of toxics/slicer_test.go through real sockets.

describe('slicer toxic', () => {
  it('delivers 480 KB byte for byte through small slices', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, {
      type: 'slicer',
      stream: 'upstream',
      attributes: { average_size: 1024, size_variation: 512, delay: 10 },
    });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const payload = Buffer.from('hello world '.repeat(40_000));
    client.write(payload);
    const received = await serverSide.waitForBytes(payload.length, 10_000);
    expect(received.data.equals(payload)).toBe(true);
  });

  it('splits a chunk into pieces around average_size and waits `delay` µs after each', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { type: 'slicer', attributes: { average_size: 100, size_variation: 50, delay: 20_000 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const payload = Buffer.alloc(1_000, 1);
    const start = performance.now();
    serverSide.write(payload);
    const received = await client.waitForBytes(payload.length);
    // About 8 pieces of 50..150 bytes, 20 ms apart.
    expect(client.chunks.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...client.chunks.map((chunk) => chunk.data.length))).toBeLessThanOrEqual(400);
    expect(received.at - start).toBeGreaterThanOrEqual(100);
    expect(received.data.equals(payload)).toBe(true);
  });
});
