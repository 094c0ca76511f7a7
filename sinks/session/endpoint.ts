import type { EndpointAddress, ResolveEndpoint } from '../api.ts';

/** One host of a slot: as the spec names it (`label`, recorded in the history) and where it is dialled. */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
  /** `host:port` from the spec. */
  readonly label: string;
  readonly address: EndpointAddress;
}

/** The default: dial the spec's host and port, resolved by DNS. */
export const dialAsWritten: ResolveEndpoint = (host, port) => ({ host, port });

export function endpointOf(host: string, port: number, resolve: ResolveEndpoint = dialAsWritten): Endpoint {
  return { host, port, label: `${host}:${port}`, address: resolve(host, port) };
}

/** The client URL: `https://` with `enable_tls` (the port stays the spec's, as in the original). */
export function endpointUrl(endpoint: Endpoint, tls: boolean): string {
  const host = endpoint.address.host.includes(':') ? `[${endpoint.address.host}]` : endpoint.address.host;
  return `${tls ? 'https' : 'http'}://${host}:${endpoint.address.port}`;
}
