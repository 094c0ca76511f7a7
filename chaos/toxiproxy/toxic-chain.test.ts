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

// Ports of toxics/toxic_test.go (persistent connections, add/remove while echoing) and
// link_test.go's TestNoDataDropped: splicing toxics in and out of live links loses no byte.

async function echoRound(client: Peer, serverSide: Peer, text: string): Promise<void> {
  const serverBefore = serverSide.bytes.length;
  const clientBefore = client.bytes.length;
  client.write(text);
  const atServer = await serverSide.waitForBytes(serverBefore + text.length);
  expect(atServer.data.subarray(serverBefore).toString()).toBe(text);
  serverSide.write(text);
  const atClient = await client.waitForBytes(clientBefore + text.length);
  expect(atClient.data.subarray(clientBefore).toString()).toBe(text);
}

describe('toxic chains on live connections', () => {
  it('keeps a connection working across toxics added and /reset twice', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    await addToxic(proxy, { name: 'noop_up', type: 'noop', stream: 'upstream' });
    await addToxic(proxy, { name: 'noop_down', type: 'noop', stream: 'downstream' });
    await echoRound(client, serverSide, 'hello world\n');
    await server.client.reset();
    await echoRound(client, serverSide, 'hello world\n');
    await server.client.reset();
    await echoRound(client, serverSide, 'hello world\n');
    expect(client.isClosed).toBe(false);
  });

  it('echoes correctly while toxics are added and removed in both directions', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    let running = true;
    const churn = (async () => {
      let flip = false;
      while (running) {
        if (flip) {
          await addToxic(proxy, { name: 'noop_up', type: 'noop', stream: 'upstream' });
          await fetch(`${server.url}/proxies/test/toxics/noop_down`, { method: 'DELETE' });
        } else {
          await fetch(`${server.url}/proxies/test/toxics/noop_up`, { method: 'DELETE' });
          await addToxic(proxy, { name: 'noop_down', type: 'noop', stream: 'downstream', attributes: {} });
        }
        flip = !flip;
      }
    })();
    for (let i = 0; i < 100; i += 1) await echoRound(client, serverSide, `hello world ${i}\n`);
    running = false;
    await churn;
  });

  it('drops no data while a latency toxic is spliced in and out of a busy stream', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const total = 65_535;
    const expected = Buffer.alloc(total * 2);
    for (let i = 0; i < total; i += 1) expected.writeUInt16BE(i, i * 2);

    let done = false;
    const churn = (async () => {
      while (!done) {
        await addToxic(proxy, { type: 'latency', stream: 'upstream', attributes: { latency: 1_000 } });
        await fetch(`${server.url}/proxies/test/toxics/latency_upstream`, { method: 'DELETE' });
      }
    })();
    for (let offset = 0; offset < expected.length; offset += 512) {
      client.write(expected.subarray(offset, offset + 512));
      await sleep(1);
    }
    const received = await serverSide.waitForBytes(expected.length, 15_000);
    done = true;
    await churn;
    expect(received.data.equals(expected)).toBe(true);
    await sleep(20);
    expect(serverSide.bytes.length).toBe(expected.length);
  });

  it('passes data through a chain of several toxics of both directions in order', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start({ echo: true });
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, {
      name: 'slice_up',
      type: 'slicer',
      stream: 'upstream',
      attributes: { average_size: 7, size_variation: 3 },
    });
    await addToxic(proxy, {
      name: 'lat_up',
      type: 'latency',
      stream: 'upstream',
      attributes: { latency: 20, jitter: 10 },
    });
    await addToxic(proxy, { name: 'bw_down', type: 'bandwidth', attributes: { rate: 1_000 } });
    await addToxic(proxy, {
      name: 'slice_down',
      type: 'slicer',
      attributes: { average_size: 5, size_variation: 2, delay: 100 },
    });
    await using client = await connectPeer(proxy.listen);
    const text = Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join('');
    client.write(text);
    expect((await client.waitForBytes(text.length)).data.toString()).toBe(text);
  });
});
