import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { addToxic, connectThrough, proxyTo, startTestServer, UNDER_TEST, Upstream, type Peer } from './test-support.ts';

// Port of link_test.go's TestToxicity, plus the per-connection draw: a fraction of connections
// is affected, the same seed picks the same ones, and a restarted stage draws again.
const SEED = 20240611;
const CONNECTIONS = 40;

/** Which of CONNECTIONS echo connections a 400 ms downstream latency at toxicity 0.5 slows down. */
async function affectedSet(seed: number, redrawBeforeMeasuring = false): Promise<boolean[]> {
  await using server = await startTestServer(seed);
  await using upstream = await Upstream.start({ echo: true });
  const proxy = await proxyTo(server.client, upstream);
  const toxic = await addToxic(proxy, { type: 'latency', toxicity: 0.5, attributes: { latency: 400 } });
  const clients: Peer[] = [];
  for (let i = 0; i < CONNECTIONS; i += 1) clients.push((await connectThrough(proxy, upstream)).client);
  if (redrawBeforeMeasuring) await toxic.update({ attributes: { latency: 400 } } as never);
  const start = performance.now();
  for (const client of clients) client.write('x');
  const arrivals = await Promise.all(clients.map((client) => client.waitForBytes(1)));
  await Promise.all(clients.map((client) => client[Symbol.asyncDispose]()));
  return arrivals.map((arrival) => arrival.at - start >= 200);
}

describe(`toxicity (seed ${SEED})`, () => {
  it('at 0 leaves a timeout toxic inert; updating it to 1 applies it to the open connection', async () => {
    await using server = await startTestServer(SEED);
    await using upstream = await Upstream.start({ echo: true });
    const proxy = await proxyTo(server.client, upstream);
    const toxic = await addToxic(proxy, { name: 'timeout1', type: 'timeout', toxicity: 0, attributes: { timeout: 0 } });
    const { client } = await connectThrough(proxy, upstream);
    await using _client = client;
    client.write('*');
    expect((await client.waitForBytes(1)).data.toString()).toBe('*');

    const start = performance.now();
    await toxic.update({ toxicity: 1, attributes: { timeout: 100 } } as never);
    client.write('*');
    const closed = await client.waitClosed(1_000);
    expect(closed.at - start).toBeGreaterThanOrEqual(95);
    expect(closed.at - start).toBeLessThan(600);
    expect(client.bytes.toString()).toBe('*');
  });

  it('affects about half of the connections at 0.5, the same ones for the same seed', async () => {
    const first = await affectedSet(SEED);
    const count = first.filter(Boolean).length;
    expect(count).toBeGreaterThanOrEqual(8);
    expect(count).toBeLessThanOrEqual(32);
    // Ours replays its draws from the seed; the real server draws from one generator its
    // connections' goroutines share, in whatever order they run (a documented difference).
    if (UNDER_TEST === 'builtin') expect(await affectedSet(SEED)).toEqual(first);
  });

  it('draws again when the toxic is updated', async () => {
    const before = await affectedSet(SEED);
    const after = await affectedSet(SEED, true);
    expect(after.filter(Boolean).length).toBeGreaterThanOrEqual(8);
    expect(after.filter(Boolean).length).toBeLessThanOrEqual(32);
    expect(after).not.toEqual(before);
  });

  it('draws per direction: toxicity 0 upstream and 1 downstream affect only the responses', async () => {
    await using server = await startTestServer(SEED);
    await using upstream = await Upstream.start({ echo: true });
    const proxy = await proxyTo(server.client, upstream);
    await addToxic(proxy, { type: 'latency', stream: 'upstream', toxicity: 0, attributes: { latency: 300 } });
    await addToxic(proxy, { type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 100 } });
    const { client, server: serverSide } = await connectThrough(proxy, upstream);
    await using _client = client;
    const start = performance.now();
    client.write('y');
    expect((await serverSide.waitForBytes(1)).at - start).toBeLessThan(80);
    const back = (await client.waitForBytes(1)).at - start;
    expect(back).toBeGreaterThanOrEqual(98);
    expect(back).toBeLessThan(250);
  });
});
