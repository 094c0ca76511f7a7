import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addToxic, connectThrough, proxyTo, sleep, startTestServer, Upstream } from './test-support.ts';

// Ports of toxics/limit_data_test.go through real sockets: the upstream sees at most `bytes`,
// the chunk crossing the limit is cut, and the connection closes once the limit is reached.

async function limitCase(limit: number, writes: Buffer[]) {
  await using server = await startTestServer();
  await using upstream = await Upstream.start();
  const proxy = await proxyTo(server.client, upstream);
  await addToxic(proxy, { type: 'limit_data', stream: 'upstream', attributes: { bytes: limit } });
  const { client, server: serverSide } = await connectThrough(proxy, upstream);
  await using _client = client;
  for (const write of writes) {
    client.write(write);
    await sleep(20);
  }
  await sleep(50);
  return { received: serverSide.bytes, clientClosed: client.isClosed, serverClosed: serverSide.isClosed };
}

describe('limit_data toxic', () => {
  it('passes a chunk smaller than the limit and keeps the connection', async () => {
    const chunk = randomBytes(50);
    const result = await limitCase(100, [chunk]);
    expect(result.received.equals(chunk)).toBe(true);
    expect(result.clientClosed).toBe(false);
  });

  it('passes a chunk exactly at the limit, then closes', async () => {
    const chunk = randomBytes(100);
    const result = await limitCase(100, [chunk]);
    expect(result.received.equals(chunk)).toBe(true);
    expect(result.clientClosed).toBe(true);
    expect(result.serverClosed).toBe(true);
  });

  it('cuts a chunk bigger than the limit', async () => {
    const chunk = randomBytes(150);
    const result = await limitCase(100, [chunk]);
    expect(result.received.equals(chunk.subarray(0, 100))).toBe(true);
    expect(result.clientClosed).toBe(true);
  });

  it('counts across chunks: four of 25 bytes fill a limit of 100', async () => {
    const chunk = randomBytes(25);
    const result = await limitCase(100, [chunk, chunk, chunk, chunk]);
    expect(result.received.equals(Buffer.concat([chunk, chunk, chunk, chunk]))).toBe(true);
    expect(result.clientClosed).toBe(true);
  });

  it('cuts the second chunk where it would overflow the limit', async () => {
    const first = randomBytes(90);
    const second = randomBytes(20);
    const result = await limitCase(100, [first, second]);
    expect(result.received.equals(Buffer.concat([first, second.subarray(0, 10)]))).toBe(true);
    expect(result.clientClosed).toBe(true);
  });

  it('at 0 passes nothing and closes only when a chunk arrives', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { type: 'limit_data', stream: 'upstream', attributes: { bytes: 0 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    await sleep(200);
    expect(client.isClosed).toBe(false);
    client.write(randomBytes(100));
    await client.waitClosed(1_000);
    expect(serverSide.bytes.length).toBe(0);
  });

  it('keeps its count when the toxic is updated or a toxic is added after it', async () => {
    await using server = await startTestServer();
    await using upstream = await Upstream.start();
    const proxy = await proxyTo(server.client, upstream);
    const toxic = await addToxic(proxy, { type: 'limit_data', stream: 'upstream', attributes: { bytes: 100 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const first = randomBytes(60);
    client.write(first);
    await serverSide.waitForBytes(60);
    await toxic.update({ attributes: { bytes: 100 } } as never);
    const second = randomBytes(30);
    client.write(second);
    await serverSide.waitForBytes(90);
    await addToxic(proxy, { type: 'noop', stream: 'upstream' });
    const third = randomBytes(20);
    client.write(third);
    await client.waitClosed(1_000);
    expect(serverSide.bytes.equals(Buffer.concat([first, second, third.subarray(0, 10)]))).toBe(true);
  });
});
