import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { componentLogger } from '../../base/index.ts';
import type { ExternalClusterFile } from './cluster-file.ts';
import { ExternalCluster } from './external-cluster.ts';

// A member of an attached cluster that does not answer: paused and dead look the same to a
// ping, so without a `status` template its state is unknown, never guessed.

/** A port that accepts connections and never answers: a SIGSTOPped server, as a ping sees it. */
async function silentPort(): Promise<{ port: number; server: Server }> {
  const server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address !== null ? address.port : 0, server };
}

function cluster(port: number, commands: ExternalClusterFile['process_commands']): ExternalCluster {
  const replica = {
    name: 's1r1',
    http: `http://127.0.0.1:${port}`,
    direct_http: `http://127.0.0.1:${port}`,
    tcp: `127.0.0.1:${port}`,
    proxies: { client: 'c', keeper: 'k', keepers: ['k'], interserver: 'i' },
  };
  return new ExternalCluster(
    {
      backend: 'embedded',
      cluster: 'chaos',
      run_id: 'r',
      dir: '/nonexistent',
      toxiproxy: 'http://127.0.0.1:1',
      proxies_enabled: true,
      keepers: [],
      shards: [{ name: 's1', replicas: [replica] }],
      backend_limits: [],
      ...(commands === undefined ? {} : { process_commands: commands }),
    },
    componentLogger('member-state-test'),
  );
}

describe('ExternalCluster.memberState', () => {
  it('without a status template, a member that does not answer is unknown, not dead', async () => {
    const { port, server } = await silentPort();
    try {
      expect(
        await cluster(port, { pause: 'true "$CHAOS_MEMBER"', resume: 'true "$CHAOS_MEMBER"' }).memberState('s1r1'),
      ).toBe('unknown');
    } finally {
      server.close();
    }
  });

  it('with a status template, asks it', async () => {
    const { port, server } = await silentPort();
    try {
      expect(await cluster(port, { status: 'echo paused' }).memberState('s1r1')).toBe('paused');
    } finally {
      server.close();
    }
  });
});
