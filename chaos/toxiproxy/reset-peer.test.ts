import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { addToxic, connectThrough, proxyTo, sleep, startTestServer, Upstream } from './test-support.ts';

// Ports of toxics/reset_peer_test.go and link_test.go's TestResetToxicZeroToxicity, plus the
// "RST only if present at connect time" and "idle connections are never reset" rules.
const message = 'reset toxic payload\n';

async function resetCase(stream: 'upstream' | 'downstream', timeout: number) {
  await using server = await startTestServer();
  await using upstream = await Upstream.start({ echo: true });
  const proxy = await proxyTo(server.client, upstream);
  await addToxic(proxy, { name: 'resettcp', type: 'reset_peer', stream, attributes: { timeout } });
  const { client, server: serverSide } = await connectThrough(proxy, upstream);
  await using _client = client;
  const start = performance.now();
  client.write(message);
  const closed = await client.waitClosed(2_000);
  const serverClosed = await serverSide.waitClosed(2_000);
  return {
    elapsed: closed.at - start,
    code: closed.code,
    received: client.bytes.length,
    serverCode: serverClosed.code,
    serverBytes: serverSide.bytes.length,
  };
}

describe('reset_peer toxic', () => {
  it('resets both ends at once on the first upstream chunk, dropping it', async () => {
    const result = await resetCase('upstream', 0);
    expect(result.code).toBe('ECONNRESET');
    // The real server sets linger 0 on both sockets of the link: the upstream sees the RST too.
    expect(result.serverCode).toBe('ECONNRESET');
    expect(result.serverBytes).toBe(0);
    expect(result.received).toBe(0);
    expect(result.elapsed).toBeLessThan(400);
  });

  it('waits `timeout` ms after the first upstream chunk before the reset', async () => {
    const result = await resetCase('upstream', 100);
    expect(result.code).toBe('ECONNRESET');
    expect(result.elapsed).toBeGreaterThanOrEqual(98);
    expect(result.elapsed).toBeLessThan(500);
  });

  it('resets the client after the first downstream chunk plus `timeout`, without delivering it', async () => {
    const result = await resetCase('downstream', 100);
    expect(result.code).toBe('ECONNRESET');
    expect(result.received).toBe(0);
    expect(result.serverBytes).toBe(message.length);
    expect(result.serverCode).toBe('ECONNRESET');
    expect(result.elapsed).toBeGreaterThanOrEqual(98);
    expect(result.elapsed).toBeLessThan(500);
  });

  it('never resets an idle connection', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start({ echo: true });
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { type: 'reset_peer', stream: 'upstream', attributes: { timeout: 0 } });
    const { client } = await connectThrough(proxy, upstream);
    await using _client = client;
    await sleep(300);
    expect(client.isClosed).toBe(false);
    client.write(message);
    expect((await client.waitClosed(1_000)).code).toBe('ECONNRESET');
  });

  it('closes normally (no RST) a connection opened before the toxic was added', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start({ echo: true });
    const proxy = await proxyTo(server.client, upstream);
    const { client } = await connectThrough(proxy, upstream);
    await using _client = client;
    await addToxic(proxy, { type: 'reset_peer', stream: 'upstream', attributes: { timeout: 0 } });
    client.write(message);
    const closed = await client.waitClosed(1_000);
    expect(closed.code).toBeUndefined();
    expect(client.bytes.length).toBe(0);
  });

  it('passes data untouched at toxicity 0', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start({ echo: true });
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { type: 'reset_peer', toxicity: 0, attributes: { timeout: 0 } });
    const { client } = await connectThrough(proxy, upstream);
    await using _client = client;
    client.write('c');
    expect((await client.waitForBytes(1)).data.toString()).toBe('c');
    await sleep(50);
    expect(client.isClosed).toBe(false);
  });
});
