import type { Direction } from './toxic.ts';

/**
 * The bytes one proxy moved, per direction of its links: `received` from the link's source,
 * `sent` to its destination after the toxics. What the real server's proxy metrics count
 * (`-proxy-metrics`); here they are counted as the bytes move, where the real server adds a
 * connection's bytes when that direction ends.
 */
export class ProxyTraffic {
  readonly received: Record<Direction, number> = { upstream: 0, downstream: 0 };
  readonly sent: Record<Direction, number> = { upstream: 0, downstream: 0 };
}
