import { describeError } from '../../harness/base/index.ts';
import type { LinkCounters } from '../../harness/flow/history/index.ts';
import { FaultProxyStatusError, type FaultProxyClient } from './fault-proxy-client.ts';

/** The real Toxiproxy's counter of the bytes a proxy link read from its source (`-proxy-metrics`). */
const RECEIVED = 'toxiproxy_proxy_received_bytes_total';

/** One sample of the Prometheus text format: `name{labels} value`. */
const SAMPLE = /^([A-Za-z_:][A-Za-z0-9_:]*)\{(.*)\}\s+(\S+)/;
const LABEL = /([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

const unescape = (value: string) => value.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));

function labelsOf(text: string): Map<string, string> {
  return new Map([...text.matchAll(LABEL)].map((match) => [match[1] ?? '', unescape(match[2] ?? '')]));
}

/**
 * Bytes each of `proxies` received upstream (from its clients), summed over its series (a proxy
 * whose listen or upstream changed has one per address pair). A proxy with no series is absent.
 */
export function upstreamReceived(metrics: string, proxies: readonly string[]): Record<string, number> {
  const wanted = new Set(proxies);
  const received: Record<string, number> = {};
  for (const line of metrics.split('\n')) {
    const sample = SAMPLE.exec(line);
    if (sample === null || sample[1] !== RECEIVED) continue;
    const labels = labelsOf(sample[2] ?? '');
    const proxy = labels.get('proxy');
    if (proxy === undefined || !wanted.has(proxy) || labels.get('direction') !== 'upstream') continue;
    received[proxy] = (received[proxy] ?? 0) + Number(sample[3]);
  }
  return received;
}

/**
 * What the fault proxy says its `proxies` received upstream so far: read by a toxic fault when
 * applied and once healed, so the checkers can see that the faulted link carried the INSERT it
 * was aimed at. Never throws: a proxy server without the counters (a Toxiproxy started without
 * `-proxy-metrics`) yields why, and the fault is then not shown to have fired.
 */
export async function readLinkCounters(client: FaultProxyClient, proxies: readonly string[]): Promise<LinkCounters> {
  const listens = await listensOf(client, proxies);
  try {
    return { received: upstreamReceived(await client.metrics(), proxies), listens };
  } catch (error) {
    return {
      received: {},
      listens,
      unavailable:
        error instanceof FaultProxyStatusError && error.status === 404
          ? `GET ${client.url}/metrics answered 404: the Toxiproxy serves no proxy byte counters (start it with -proxy-metrics)`
          : describeError(error),
    };
  }
}

/** Where each proxy listens, as the proxy server says; a proxy it cannot read is left out (never throws). */
async function listensOf(client: FaultProxyClient, proxies: readonly string[]): Promise<Record<string, string>> {
  const read = await Promise.all(
    proxies.map(async (proxy) => {
      try {
        return [[proxy, (await client.proxy(proxy)).listen] as const];
      } catch {
        return [];
      }
    }),
  );
  return Object.fromEntries(read.flat());
}
