import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export interface HostPort {
  /** Empty means every interface (Go's ":port"). */
  readonly host: string;
  readonly port: number;
}

/** Splits "host:port", "[v6]:port" or ":port" the way Go's net.SplitHostPort does. */
export function splitHostPort(address: string): HostPort {
  // Go's net.Listen takes "" as every interface on a free port.
  if (address === '') return { host: '', port: 0 };
  const colon = address.lastIndexOf(':');
  if (colon < 0) throw new Error(`address ${address}: missing port in address`);
  let host = address.slice(0, colon);
  const portText = address.slice(colon + 1);
  if (host.startsWith('[')) {
    if (!host.endsWith(']')) throw new Error(`address ${address}: missing ']' in address`);
    host = host.slice(1, -1);
  } else if (host.includes(':')) {
    throw new Error(`address ${address}: too many colons in address`);
  }
  const port = portText === '' ? 0 : Number(portText);
  if (!/^\d*$/.test(portText) || !Number.isInteger(port) || port > 65535) {
    throw new Error(`address ${address}: invalid port`);
  }
  return { host, port };
}

/** "127.0.0.1:80" or "[::1]:80". */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The address to bind for a host name. Go listens on the first IPv4 address of a name, so
 * "localhost:0" comes back as "127.0.0.1:N"; Node alone would often pick ::1.
 */
export async function resolveListenHost(host: string): Promise<string | undefined> {
  if (host === '') return undefined;
  if (isIP(host) !== 0) return host;
  try {
    return (await lookup(host, { family: 4 })).address;
  } catch {
    return (await lookup(host)).address;
  }
}
