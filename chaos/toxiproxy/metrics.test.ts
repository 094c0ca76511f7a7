import { describe, expect, it } from 'vitest';
import { connectPeer, sleep, startTestServer, UNDER_TEST, Upstream } from './test-support.ts';

const sample = (text: string, metric: string, direction: string, proxy: string) =>
  Number(
    new RegExp(
      `^${metric}\\{direction="${direction}",listener="[^"]*",proxy="${proxy}",upstream="[^"]*"\\} (\\d+)$`,
      'm',
    ).exec(text)?.[1],
  );

async function metrics(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

describe('GET /metrics (the real server’s -proxy-metrics)', () => {
  it('counts the bytes each proxy received and sent per direction, under the real metric names and labels', async () => {
    await using upstream = await Upstream.start({ echo: true });
    await using server = await startTestServer(1, { proxyMetrics: true });
    const proxy = await server.client.createProxy({ name: 'echo', listen: '127.0.0.1:0', upstream: upstream.address });
    await server.client.createProxy({ name: 'idle', listen: '127.0.0.1:0', upstream: upstream.address });
    const client = await connectPeer(proxy.listen);
    client.write(Buffer.alloc(3000, 1));
    await client.waitForBytes(3000);
    const open = await metrics(server.url);
    // A documented difference: ours counts bytes as they move and shows every proxy from its
    // creation; the real server adds a direction's bytes when it ends and shows a proxy after
    // its first connection ended.
    if (UNDER_TEST === 'builtin') {
      expect(sample(open, 'toxiproxy_proxy_received_bytes_total', 'upstream', 'echo')).toBe(3000);
      expect(sample(open, 'toxiproxy_proxy_received_bytes_total', 'upstream', 'idle')).toBe(0);
    } else {
      expect(sample(open, 'toxiproxy_proxy_received_bytes_total', 'upstream', 'echo')).toBeNaN();
      expect(sample(open, 'toxiproxy_proxy_received_bytes_total', 'upstream', 'idle')).toBeNaN();
    }
    await client[Symbol.asyncDispose]();
    await sleep(100);
    const closed = await metrics(server.url);
    for (const direction of ['upstream', 'downstream']) {
      expect(sample(closed, 'toxiproxy_proxy_received_bytes_total', direction, 'echo')).toBe(3000);
      expect(sample(closed, 'toxiproxy_proxy_sent_bytes_total', direction, 'echo')).toBe(3000);
    }
    expect(closed).toContain(`listener="${proxy.listen}"`);
    expect(closed).toContain(`upstream="${upstream.address}"`);
  });

  it('is not served without proxy metrics, as the real server serves no /metrics without a metrics flag', async () => {
    await using server = await startTestServer();
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });
});
