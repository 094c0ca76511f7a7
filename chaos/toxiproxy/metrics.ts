import type { FaultProxy } from './proxy.ts';
import type { Direction } from './toxic.ts';

/** The real server's proxy metric names (its `collectors/proxy.go`: namespace, subsystem, name). */
export const PROXY_METRICS = {
  received: 'toxiproxy_proxy_received_bytes_total',
  sent: 'toxiproxy_proxy_sent_bytes_total',
} as const;

const DIRECTIONS: readonly Direction[] = ['upstream', 'downstream'];

/** A Prometheus label value: backslash, quote and newline escaped. */
const labelValue = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/**
 * `GET /metrics` with proxy metrics on, in the Prometheus text format: per proxy and direction,
 * the bytes received from the source and sent to the destination, labelled as the real server
 * labels them (`direction`, `listener`, `proxy`, `upstream`). Every proxy has its series from its
 * creation on (the real server shows one only after its first connection ends).
 */
export function proxyMetricsText(proxies: readonly FaultProxy[]): string {
  const lines: string[] = [];
  for (const [kind, name] of Object.entries(PROXY_METRICS) as [keyof typeof PROXY_METRICS, string][]) {
    lines.push(`# HELP ${name} Bytes ${kind} on a proxy link, by direction.`, `# TYPE ${name} counter`);
    for (const proxy of proxies)
      for (const direction of DIRECTIONS) {
        const labels = `direction="${direction}",listener="${labelValue(proxy.listen)}",proxy="${labelValue(proxy.name)}",upstream="${labelValue(proxy.upstream)}"`;
        lines.push(`${name}{${labels}} ${proxy.traffic[kind][direction]}`);
      }
  }
  return `${lines.join('\n')}\n`;
}
