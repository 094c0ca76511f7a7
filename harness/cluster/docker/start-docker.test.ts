import type { StartedNetwork } from 'testcontainers';
import { describe, expect, it } from 'vitest';
import { dockerPlan } from './docker-plan.ts';
import { containerFor, healthProbe, isLocalEngine } from './start-docker.ts';

describe('isLocalEngine', () => {
  it('takes only an engine on this machine: the client proxies are published on its loopback addresses', () => {
    for (const host of ['localhost', '127.0.0.1', '::1']) expect(isLocalEngine(host), host).toBe(true);
    for (const host of ['10.0.0.5', 'docker.example.com', 'host.docker.internal']) {
      expect(isLocalEngine(host), host).toBe(false);
    }
  });
});

describe('containerFor', () => {
  it('asks the engine to publish each client proxy on its replica address, all at the client port', () => {
    const plan = dockerPlan({ shards: 2, replicas: 2, keepers: 1 });
    const toxiproxy = plan.containers.find((container) => container.kind === 'toxiproxy');
    if (toxiproxy === undefined) throw new Error('no toxiproxy container in the plan');
    const network = { getName: () => 'chaos-net' } as StartedNetwork;
    // What testcontainers sends to the engine's container create: `{ ...createOpts, HostConfig: hostConfig }`.
    const request = containerFor(toxiproxy, network, 24_567) as unknown as {
      createOpts: { ExposedPorts: Record<string, object> };
      hostConfig: { PortBindings: Record<string, { HostIp?: string; HostPort: string }[]> };
    };
    expect(request.hostConfig.PortBindings).toEqual({
      '8474/tcp': [{ HostPort: '0' }],
      '20000/tcp': [{ HostIp: '127.10.1.1', HostPort: '24567' }],
      '20001/tcp': [{ HostIp: '127.10.1.2', HostPort: '24567' }],
      '20002/tcp': [{ HostIp: '127.10.2.1', HostPort: '24567' }],
      '20003/tcp': [{ HostIp: '127.10.2.2', HostPort: '24567' }],
    });
    expect(Object.keys(request.createOpts.ExposedPorts).sort()).toEqual(
      Object.keys(request.hostConfig.PortBindings).sort(),
    );
    expect(plan.proxies.find((proxy) => proxy.name === 's2r1_client')?.listen).toBe('0.0.0.0:20002');
  });
});

describe('healthProbe', () => {
  it("asks each member's own tool: Keeper its client, a broker the API versions on its internal listener, a node a query", () => {
    expect(healthProbe('keeper')[0]).toBe('clickhouse-keeper-client');
    expect(healthProbe('kafka')).toEqual([
      '/opt/kafka/bin/kafka-broker-api-versions.sh',
      '--bootstrap-server',
      'localhost:9094',
    ]);
    expect(healthProbe('clickhouse')[0]).toBe('clickhouse-client');
  });
});
