import { SinkError } from '../errors.ts';
import type { ResolveEndpoint } from '../api.ts';

/**
 * A `ResolveEndpoint` from a fixed map of host name -> `http://ip:port` (like /etc/hosts with
 * ports). A host not in the map is refused: a typo must not silently dial DNS.
 */
export function addressBook(entries: Readonly<Record<string, string>>): ResolveEndpoint {
  const book = new Map(
    Object.entries(entries).map(([host, url]) => {
      const parsed = new URL(url);
      return [host, { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port) }] as const;
    }),
  );
  return (host) => {
    const address = book.get(host);
    if (!address)
      throw new SinkError(
        'SINK_ENDPOINT_UNKNOWN',
        `Host '${host}' is not in the address book (known: ${[...book.keys()].join(', ')})`,
      );
    return address;
  };
}
