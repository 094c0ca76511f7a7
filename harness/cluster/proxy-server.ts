import { join } from 'node:path';
import { HarnessError, PROJECT_ROOT } from '../base/index.ts';
import type { BackendName } from './cluster-state.ts';
import { PROXY_ALLOCATOR_ENV } from './proxy-process-env.ts';
import {
  isProxyServerKind,
  PROXY_SERVER_KINDS,
  realToxiproxyBinary,
  type ProxyServerKind,
} from './real-toxiproxy/real-toxiproxy.ts';

export interface ProxyServerLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * How a local cluster starts its fault proxy: ours (`chaos/toxiproxy`, run by path) or the real
 * Toxiproxy binary. Both serve the same API on `port` with the byte counters on, which the chaos
 * faults read as the evidence that a faulted link carried the INSERT it was aimed at.
 */
export function proxyServerLaunch(
  kind: ProxyServerKind,
  options: { readonly port: number; readonly seed?: number | undefined },
): ProxyServerLaunch {
  const seed = options.seed === undefined ? [] : [String(options.seed)];
  if (kind === 'toxiproxy')
    return {
      command: realToxiproxyBinary(),
      args: [
        '-host',
        '127.0.0.1',
        '-port',
        String(options.port),
        '-proxy-metrics',
        ...seed.flatMap((s) => ['-seed', s]),
      ],
    };
  return {
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      join(PROJECT_ROOT, 'chaos', 'toxiproxy', 'cli.ts'),
      '--host',
      '127.0.0.1',
      '--port',
      String(options.port),
      '--proxy-metrics',
      ...seed.flatMap((s) => ['--seed', s]),
    ],
    env: PROXY_ALLOCATOR_ENV,
  };
}

/**
 * `--proxy`, checked before anything starts: a name we know, one the backend can run, and for the
 * real Toxiproxy a built binary (else one line saying it needs Go, `PROXY_SERVER_MISSING`).
 * The docker backend always runs the real Toxiproxy image; an attached cluster runs its own proxy.
 */
export function parseProxyServer(
  value: string | undefined,
  backend: BackendName | 'external',
  locateRealBinary: () => string = realToxiproxyBinary,
): ProxyServerKind {
  if (value === undefined) return backend === 'docker' ? 'toxiproxy' : 'builtin';
  if (!isProxyServerKind(value))
    throw new HarnessError('CLI_USAGE', `--proxy takes ${PROXY_SERVER_KINDS.join(' or ')}, got '${value}'`);
  if (backend === 'external')
    throw new HarnessError(
      'CLI_USAGE',
      '--proxy chooses the fault proxy of a cluster the harness starts; an attached cluster runs its own',
    );
  if (backend === 'docker' && value === 'builtin')
    throw new HarnessError(
      'CLI_USAGE',
      'the docker backend runs the real Toxiproxy image; --proxy builtin is for the embedded and binary backends',
    );
  if (value === 'toxiproxy' && backend !== 'docker') locateRealBinary();
  return value;
}
