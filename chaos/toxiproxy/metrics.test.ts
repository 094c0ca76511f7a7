import { Toxiproxy } from 'toxiproxy-node-client';
import { describe, expect, it } from 'vitest';
import { startToxiproxyServer } from './server.ts';
import { connectPeer, Upstream } from './test-support.ts';

const sample = (text: string, metric: string, direction: string, proxy: string) =>
  Number(
    new RegExp(
      `^${metric}\\{direction="${direction}",listener="[^"]*",proxy="${proxy}",upstream="[^"]*"\\} (\\d+)$`,
      'm',
    ).exec(text)?.[1],
  );

describe('GET /metrics (the real server’s -proxy-metrics)', () => {
  it('counts the bytes each proxy received and sent per direction, under the real metric names and labels', async () => {
    await using upstream = await Upstream.start({ echo: true });
    await using server = await startToxiproxyServer({ port: 0, proxyMetrics: true });
    const api = new Toxiproxy(server.url);
    const proxy = await api.createProxy({ name: 'echo', listen: '127.0.0.1:0', upstream: upstream.address });
    await api.createProxy({ name: 'idle', listen: '127.0.0.1:0', upstream: upstream.address });
    await using client = await connectPeer(proxy.listen);
    client.write(Buffer.alloc(3000, 1));
    await client.waitForBytes(3000);
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    for (const direction of ['upstream', 'downstream']) {
      expect(sample(text, 'toxiproxy_proxy_received_bytes_total', direction, 'echo')).toBe(3000);
      expect(sample(text, 'toxiproxy_proxy_sent_bytes_total', direction, 'echo')).toBe(3000);
      expect(sample(text, 'toxiproxy_proxy_received_bytes_total', direction, 'idle')).toBe(0);
    }
    expect(text).toContain(`listener="${proxy.listen}"`);
    expect(text).toContain(`upstream="${upstream.address}"`);
  });

  it('is not served without proxy metrics, as the real server serves no /metrics without a metrics flag', async () => {
    await using server = await startToxiproxyServer({ port: 0 });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });
});
