import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError, PROJECT_ROOT } from '../../base/index.ts';

/**
 * The real Toxiproxy (Shopify's Go server), built from source by `scripts/setup.sh` when Go is
 * present. Pinned to the version `chaos/toxiproxy` is compatible with, so that the two are
 * interchangeable behind `toxiproxy-node-client` and their differences are the documented ones.
 */
export const REAL_TOXIPROXY_VERSION = '2.12.0';
export const REAL_TOXIPROXY_MODULE = `github.com/Shopify/toxiproxy/v2/cmd/server@v${REAL_TOXIPROXY_VERSION}`;
export const REAL_TOXIPROXY_BINARY = join(
  PROJECT_ROOT,
  'harness',
  'cluster',
  'real-toxiproxy',
  'build',
  `toxiproxy-server-${REAL_TOXIPROXY_VERSION}`,
);

/** The fault proxy a local cluster runs: ours (`chaos/toxiproxy`) or the real one. */
export type ProxyServerKind = 'builtin' | 'toxiproxy';
export const PROXY_SERVER_KINDS: readonly ProxyServerKind[] = ['builtin', 'toxiproxy'];

export function isProxyServerKind(value: string): value is ProxyServerKind {
  return (PROXY_SERVER_KINDS as readonly string[]).includes(value);
}

/** Names a Toxiproxy server binary of the user's own instead of the one setup builds. */
export const TOXIPROXY_BINARY_ENV = 'CHAOS_TOXIPROXY_BINARY';

/** The binary, or one line saying what is missing and how to get it (`PROXY_SERVER_MISSING`). */
export function realToxiproxyBinary(): string {
  const own = process.env[TOXIPROXY_BINARY_ENV];
  const binary = own === undefined || own === '' ? REAL_TOXIPROXY_BINARY : own;
  if (existsSync(binary)) return binary;
  throw new HarnessError(
    'PROXY_SERVER_MISSING',
    binary === REAL_TOXIPROXY_BINARY
      ? `the real Toxiproxy ${REAL_TOXIPROXY_VERSION} is not built (${binary}): it needs Go; run scripts/setup.sh on a machine with Go, or use --proxy builtin`
      : `${TOXIPROXY_BINARY_ENV} names ${binary}, which does not exist`,
  );
}
