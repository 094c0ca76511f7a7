import { Toxiproxy } from 'toxiproxy-node-client';
import { describe, expect, it } from 'vitest';
import { startToxiproxyServer } from '../toxiproxy/index.ts';
import { connectPeer, Upstream } from '../toxiproxy/test-support.ts';
import { FaultProxyClient } from './fault-proxy-client.ts';
import { readLinkCounters, upstreamReceived } from './link-counters.ts';

describe('upstreamReceived', () => {
  it('sums each named proxy’s upstream received bytes over its series, whatever the label order', () => {
    const metrics = [
      '# TYPE toxiproxy_proxy_received_bytes_total counter',
      'toxiproxy_proxy_received_bytes_total{direction="upstream",listener="127.10.1.1:8123",proxy="s1r1_client",upstream="127.0.0.1:9001"} 4096',
      'toxiproxy_proxy_received_bytes_total{proxy="s1r1_client",upstream="127.0.0.1:9009",listener="127.10.1.1:8123",direction="upstream"} 4',
      'toxiproxy_proxy_received_bytes_total{direction="downstream",listener="x",proxy="s1r1_client",upstream="y"} 99',
      'toxiproxy_proxy_sent_bytes_total{direction="upstream",listener="x",proxy="s1r1_client",upstream="y"} 77',
      'toxiproxy_proxy_received_bytes_total{direction="upstream",listener="x",proxy="s1r2_client",upstream="y"} 5',
      'toxiproxy_proxy_received_bytes_total{direction="upstream",listener="x",proxy="a\\"b",upstream="y"} 6',
    ].join('\n');
    expect(upstreamReceived(metrics, ['s1r1_client', 'a"b', 'never_used'])).toEqual({ s1r1_client: 4100, 'a"b': 6 });
  });
});

describe('readLinkCounters', () => {
  it('reads what the fault proxy’s links received and where they listen, and says why when it serves no counters', async () => {
    await using upstream = await Upstream.start({ echo: true });
    await using counting = await startToxiproxyServer({ port: 0, proxyMetrics: true });
    const proxy = await new Toxiproxy(counting.url).createProxy({
      name: 's1r1_client',
      listen: '127.0.0.1:0',
      upstream: upstream.address,
    });
    await using client = await connectPeer(proxy.listen);
    client.write(Buffer.alloc(700, 1));
    await client.waitForBytes(700);
    expect(await readLinkCounters(new FaultProxyClient(counting.url), ['s1r1_client', 'never_made'])).toEqual({
      received: { s1r1_client: 700 },
      listens: { s1r1_client: proxy.listen },
    });

    await using silent = await startToxiproxyServer({ port: 0 });
    const without = await readLinkCounters(new FaultProxyClient(silent.url), ['s1r1_client']);
    expect(without.received).toEqual({});
    expect(without.unavailable).toMatch(
      /answered 404: the Toxiproxy serves no proxy byte counters \(start it with -proxy-metrics\)/,
    );
  });
});
