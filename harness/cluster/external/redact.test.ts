import { describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../description.ts';
import { redactDescription } from './redact.ts';

const replica = {
  name: 's1r1',
  http: 'http://127.10.1.1:8123',
  direct_http: 'http://127.0.0.1:8123',
  tcp: '127.0.0.1:9000',
  proxies: { client: 'c', keeper: 'k', keepers: ['k'], interserver: 'i' },
};
const description: ClusterDescription = {
  backend: 'embedded',
  cluster: 'chaos',
  run_id: 'r',
  dir: '/tmp/r',
  toxiproxy: 'http://127.0.0.1:8474',
  proxies_enabled: true,
  keepers: [{ name: 'k1', address: '127.0.0.1:2181' }],
  shards: [{ name: 's1', replicas: [replica] }],
  backend_limits: [],
  credentials: { user: 'chaos', password_env_var: 'CHAOS_CH_PASSWORD' },
};

describe('a cluster description as reports keep it', () => {
  it('names the process actions the file gives, never their commands', () => {
    const redacted = redactDescription({
      ...description,
      process_commands: { kill: 'kubectl --token s3cr3t delete pod "$CHAOS_MEMBER"', status: 'ssh ops@bastion "$1"' },
    } as ClusterDescription);
    expect(redacted.process_actions).toEqual(['kill', 'status']);
    expect(JSON.stringify(redacted)).not.toMatch(/s3cr3t|kubectl|bastion|process_commands/);
  });

  it('drops any login from its URLs, whatever produced the description', () => {
    const redacted = redactDescription({
      ...description,
      toxiproxy: 'http://admin:s3cr3t@127.0.0.1:8474',
      shards: [
        {
          name: 's1',
          replicas: [
            {
              ...replica,
              http: 'http://127.10.1.1:8123/?user=chaos&password=s3cr3t&database=x',
              direct_http: 'http://u:s3cr3t@h:1',
            },
          ],
        },
      ],
    });
    expect(JSON.stringify(redacted)).not.toMatch(/s3cr3t|admin|user=|u:/);
    expect(redacted.shards[0]?.replicas[0]?.http).toBe('http://127.10.1.1:8123/?database=x');
    expect(redacted.toxiproxy).toBe('http://127.0.0.1:8474/');
  });

  it('leaves a description with nothing to hide exactly as it was', () => {
    expect(redactDescription(description)).toEqual(description);
  });
});
