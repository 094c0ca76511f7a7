import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import {
  addToxic,
  connectPeer,
  connectThrough,
  proxyTo,
  sleep,
  startTestServer,
  Upstream,
  type Peer,
} from './test-support.ts';

// Ports of toxics/latency_test.go. Lower bounds are tight (a latency toxic must never deliver
// early); upper bounds leave room for a loaded 2-core machine.
const SLACK = 150;

const message = (tag: string): string => `${tag} ${'a'.repeat(32 * 1024)}\n`;

/** One echo round: when the upstream saw the whole message, and when the client saw it back. */
async function round(client: Peer, serverSide: Peer, tag: string): Promise<{ up: number; total: number }> {
  const payload = message(tag);
  const clientBefore = client.bytes.length;
  const serverBefore = serverSide.bytes.length;
  const start = performance.now();
  client.write(payload);
  const atServer = await serverSide.waitForBytes(serverBefore + payload.length);
  const atClient = await client.waitForBytes(clientBefore + payload.length);
  expect(atClient.data.subarray(clientBefore).toString()).toBe(payload);
  return { up: atServer.at - start, total: atClient.at - start };
}

async function latencyTest(upLatency: number | undefined, downLatency: number | undefined): Promise<void> {
  await using server = await startTestServer();
  await using upstream = await Upstream.start({ echo: true });
  const proxy = await proxyTo(server.client, upstream);
  if (upLatency !== undefined)
    await addToxic(proxy, { type: 'latency', stream: 'upstream', attributes: { latency: upLatency } });
  if (downLatency !== undefined)
    await addToxic(proxy, { type: 'latency', stream: 'downstream', attributes: { latency: downLatency } });
  const { client, server: serverSide } = await connectThrough(proxy, upstream);
  await using _client = client;
  const up = upLatency ?? 0;
  const down = downLatency ?? 0;
  // Two rounds on one connection: the delay is the same each time, it does not pile up.
  for (const tag of ['first', 'second']) {
    const measured = await round(client, serverSide, tag);
    expect(measured.up).toBeGreaterThanOrEqual(up - 2);
    expect(measured.up).toBeLessThan(up + SLACK);
    expect(measured.total).toBeGreaterThanOrEqual(up + down - 2);
    expect(measured.total).toBeLessThan(up + down + SLACK);
  }
}

describe('latency toxic', () => {
  it('delays the upstream direction', () => latencyTest(100, undefined));
  it('delays the downstream direction', () => latencyTest(undefined, 100));
  it('delays both directions evenly', () => latencyTest(100, 100));
  it('delays both directions biased up', () => latencyTest(300, 50));
  it('delays both directions biased down', () => latencyTest(50, 300));
  it('adds nothing at latency 0', () => latencyTest(0, 0));

  it('adds up two latency toxics in one direction', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start({ echo: true });
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { name: 'latency_0', type: 'latency', stream: 'upstream', attributes: { latency: 150 } });
    await addToxic(proxy, { name: 'latency_1', type: 'latency', stream: 'upstream', attributes: { latency: 150 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const measured = await round(client, serverSide, 'two');
    expect(measured.up).toBeGreaterThanOrEqual(298);
    expect(measured.up).toBeLessThan(300 + SLACK);
  });

  it('counts each delay from the chunk arrival, so a stream is shifted, not stretched, and stays in order', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { type: 'latency', stream: 'upstream', attributes: { latency: 200 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const start = performance.now();
    let sent = '';
    for (let i = 0; i < 10; i += 1) {
      const piece = `piece-${i};`;
      sent += piece;
      client.write(piece);
      await sleep(20);
    }
    const first = await serverSide.waitForBytes(8);
    const all = await serverSide.waitForBytes(sent.length);
    expect(first.at - start).toBeGreaterThanOrEqual(198);
    // Ten chunks sent over ~200 ms arrive ~200 ms later, not 10 x 200 ms later.
    expect(all.at - start).toBeLessThan(400 + 2 * SLACK);
    expect(all.data.toString()).toBe(sent);
  });

  it('spreads delays over latency ± jitter', async () => {
    await using server = await startTestServer(7);
    await using upstream = await Upstream.start({ echo: true });
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { type: 'latency', attributes: { latency: 100, jitter: 50 } });
    await using client = await connectPeer(proxy.listen);
    const delays: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const start = performance.now();
      client.write('x');
      delays.push((await client.waitForBytes(i + 1)).at - start);
    }
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(48);
    expect(Math.max(...delays)).toBeLessThan(150 + SLACK);
    expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(20);
  });

  it('keeps bulk throughput once the pipe is full (latency is not a bandwidth limit)', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const payload = Buffer.from('hello world '.repeat(1000));
    let writing = true;
    const pump = (): void => {
      while (writing && !serverSide.socket.destroyed && serverSide.socket.write(payload));
      if (writing && !serverSide.socket.destroyed) serverSide.socket.once('drain', pump);
    };
    pump();
    await addToxic(proxy, { type: 'latency', attributes: { latency: 100 } });
    await sleep(150);
    const start = performance.now();
    const target = client.bytes.length + 100 * payload.length;
    await client.waitForBytes(target);
    writing = false;
    // 1.2 MB in well under the 100 ms latency per chunk: data flows, it is only shifted.
    expect(performance.now() - start).toBeLessThan(1_000);
  });

  it('survives adding and removing a latency toxic around many short connections', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    for (let i = 0; i < 100; i += 1) {
      await addToxic(proxy, { type: 'latency', stream: 'upstream', attributes: { latency: 10 } });
      const client = await connectPeer(proxy.listen);
      client.write('hello');
      client.socket.destroy();
      await (await proxy.getToxic('latency_upstream')).remove();
    }
    await using echo = await Upstream.start({ echo: true });
    const check = await server.client.createProxy({ name: 'check', listen: 'localhost:0', upstream: echo.address });
    await using client = await connectPeer(check.listen);
    client.write('still alive');
    expect((await client.waitForBytes(11)).data.toString()).toBe('still alive');
    expect((await server.client.get('test')).enabled).toBe(true);
  });
});
