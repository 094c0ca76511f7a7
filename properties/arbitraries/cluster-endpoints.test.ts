import { describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { clusterEndpoints } from './cluster-endpoints.ts';

/** A 1x2 description whose replicas' client endpoints are these. */
function describedAt(s1r1: string, s1r2: string): ClusterDescription {
  const replica = (name: string, http: string) => ({
    name,
    http,
    direct_http: http,
    tcp: '',
    proxies: { client: `${name}_client`, keeper: '', keepers: [], interserver: '' },
  });
  return {
    backend: 'docker',
    cluster: 'chaos',
    run_id: 'r',
    dir: '',
    toxiproxy: null,
    proxies_enabled: true,
    keepers: [],
    shards: [{ name: 's1', replicas: [replica('s1r1', s1r1), replica('s1r2', s1r2)] }],
    backend_limits: [],
  };
}

describe('clusterEndpoints', () => {
  it('reads one port and a host per replica', () => {
    const endpoints = clusterEndpoints(describedAt('http://127.10.1.1:24000', 'http://127.10.1.2:24000'));
    expect(endpoints).toEqual({ port: 24000, shards: new Map([['s1', ['127.10.1.1', '127.10.1.2']]]) });
  });

  it('refuses replicas on ports of their own: a spec has one port', () => {
    expect(() => clusterEndpoints(describedAt('http://localhost:32760', 'http://localhost:32761'))).toThrow(
      'the sink specs need every client endpoint on one port; the cluster has 32760, 32761',
    );
  });

  it('refuses two replicas on one host: a spec could not tell them apart', () => {
    expect(() => clusterEndpoints(describedAt('http://localhost:24000', 'http://localhost:24000'))).toThrow(
      'the sink specs name replicas by host, but s1r1 and s1r2 share the host localhost',
    );
  });
});
