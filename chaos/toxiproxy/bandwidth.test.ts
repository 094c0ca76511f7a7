import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { addToxic, connectThrough, proxyTo, sleep, startTestServer, Upstream } from './test-support.ts';

// Port of toxics/bandwidth_test.go plus the pacing and rate-0 rules of toxiproxy-compat.md.

describe('bandwidth toxic', () => {
  it('limits the upstream direction to rate KB/s without losing bytes', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    await addToxic(proxy, { type: 'bandwidth', stream: 'upstream', attributes: { rate: 200 } });
    const payload = Buffer.from('hello world '.repeat(8334)).subarray(0, 100_000);
    const start = performance.now();
    client.write(payload);
    const received = await serverSide.waitForBytes(payload.length);
    const took = received.at - start;
    // 100,000 B at 200 KB/s = 500 ms.
    expect(took).toBeGreaterThanOrEqual(470);
    expect(took).toBeLessThan(1_000);
    expect(received.data.equals(payload)).toBe(true);
  });

  it('sends a large chunk downstream in slices every 100 ms', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { type: 'bandwidth', attributes: { rate: 20 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const start = performance.now();
    serverSide.write(Buffer.alloc(10_000, 7));
    await sleep(250);
    const midway = client.bytes.length;
    const all = await client.waitForBytes(10_000);
    // 2,000 B per 100 ms: some but not all of it after 250 ms, all of it after ~500 ms.
    expect(midway).toBeGreaterThan(0);
    expect(midway).toBeLessThan(10_000);
    expect(all.at - start).toBeGreaterThanOrEqual(470);
    expect(all.at - start).toBeLessThan(1_000);
    expect(client.chunks.length).toBeGreaterThanOrEqual(4);
  });

  it('passes nothing at rate 0, and releases everything when the toxic is removed', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    const toxic = await addToxic(proxy, { type: 'bandwidth', stream: 'upstream', attributes: { rate: 0 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    client.write('stuck in the pipe');
    await sleep(300);
    expect(serverSide.bytes.length).toBe(0);
    await toxic.remove();
    expect((await serverSide.waitForBytes(17, 1_000)).data.toString()).toBe('stuck in the pipe');
  });
});
