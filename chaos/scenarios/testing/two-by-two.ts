import type { ClusterDescription } from '../../../harness/cluster/index.ts';

/** The default 2x2 cluster as its description reads, for tests that draw specs and schedules without a cluster. */
export const TWO_BY_TWO = {
  shards: [1, 2].map((s) => ({
    name: `s${s}`,
    replicas: [1, 2].map((r) => ({
      name: `s${s}r${r}`,
      http: `http://127.10.${s}.${r}:8123`,
      proxies: { client: `s${s}r${r}_client`, interserver: `s${s}r${r}_interserver`, keepers: [`s${s}r${r}_k1`] },
    })),
  })),
  keepers: [{ name: 'k1' }],
} as unknown as ClusterDescription;
