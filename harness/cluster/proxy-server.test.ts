import { describe, expect, it } from 'vitest';
import { HarnessError } from '../base/index.ts';
import { parseProxyServer, proxyServerLaunch } from './proxy-server.ts';
import { REAL_TOXIPROXY_BINARY } from './real-toxiproxy/real-toxiproxy.ts';

const built = () => REAL_TOXIPROXY_BINARY;
const missing = () => {
  throw new HarnessError('PROXY_SERVER_MISSING', 'the real Toxiproxy is not built: it needs Go');
};
const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as HarnessError).code;
  }
  return 'no error';
};

describe('parseProxyServer (--proxy)', () => {
  it('defaults to ours on the local backends and to the real image on docker', () => {
    expect(parseProxyServer(undefined, 'embedded', missing)).toBe('builtin');
    expect(parseProxyServer(undefined, 'binary', missing)).toBe('builtin');
    expect(parseProxyServer(undefined, 'docker', missing)).toBe('toxiproxy');
  });

  it('takes the real Toxiproxy where it is built', () => {
    expect(parseProxyServer('toxiproxy', 'embedded', built)).toBe('toxiproxy');
    expect(parseProxyServer('toxiproxy', 'docker', missing)).toBe('toxiproxy');
  });

  it('refuses, before anything starts, an unbuilt real Toxiproxy, an unknown name and choices the backend cannot honour', () => {
    expect(codeOf(() => parseProxyServer('toxiproxy', 'embedded', missing))).toBe('PROXY_SERVER_MISSING');
    expect(codeOf(() => parseProxyServer('envoy', 'embedded', built))).toBe('CLI_USAGE');
    expect(codeOf(() => parseProxyServer('builtin', 'docker', built))).toBe('CLI_USAGE');
    expect(codeOf(() => parseProxyServer('builtin', 'external', built))).toBe('CLI_USAGE');
  });
});

describe('proxyServerLaunch', () => {
  it('starts either server on the port with the byte counters on and the seed passed in its own spelling', () => {
    const ours = proxyServerLaunch('builtin', { port: 8474, seed: 9 });
    expect(ours.command).toBe(process.execPath);
    expect(ours.args.join(' ')).toMatch(
      /chaos\/toxiproxy\/cli\.ts --host 127\.0\.0\.1 --port 8474 --proxy-metrics --seed 9$/,
    );
    const real = proxyServerLaunch('toxiproxy', { port: 8474, seed: 9 });
    if (real.command !== REAL_TOXIPROXY_BINARY) throw new Error('expected the real binary');
    expect(real.args).toEqual(['-host', '127.0.0.1', '-port', '8474', '-proxy-metrics', '-seed', '9']);
    expect(proxyServerLaunch('toxiproxy', { port: 1 }).args).not.toContain('-seed');
  });
});
