/**
 * Cold start and stop of the embedded cluster: `up` to every member healthy, RSS per process
 * kind, `down` time. Each topology runs `--rounds` times (default 3); medians are reported.
 * The 566 MB engine library is in the page cache after the first start, as it is on any
 * machine that ran the harness once; the first round shows the colder figure.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startEmbeddedCluster } from '../embedded/start-embedded.ts';
import type { TopologySpec } from '../topology.ts';

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function measure(topology: TopologySpec) {
  const t0 = performance.now();
  const cluster = await startEmbeddedCluster({ topology });
  const upMs = performance.now() - t0;
  const state = cluster.clusterState;
  const nodeRss = state.nodes.map((node) => rssMiB(node.process?.pid ?? 0));
  const keeperRss = state.keepers.map((keeper) => rssMiB(keeper.process?.pid ?? 0));
  const proxyRss = state.toxiproxy?.process ? rssMiB(state.toxiproxy.process.pid) : Number.NaN;
  const t1 = performance.now();
  await cluster.down();
  return { upMs, downMs: performance.now() - t1, nodeRss: median(nodeRss), keeperRss: median(keeperRss), proxyRss };
}

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Number(values.rounds);
const results: Record<string, unknown>[] = [];
for (const topology of [
  { shards: 2, replicas: 2, keepers: 1 },
  { shards: 2, replicas: 2, keepers: 3 },
]) {
  const runs = [];
  for (let round = 0; round < rounds; round++) runs.push(await measure(topology));
  const label = `${topology.shards}x${topology.replicas}x${topology.keepers}`;
  const row = {
    topology: label,
    up_ms_median: Math.round(median(runs.map((r) => r.upMs))),
    up_ms_first: Math.round(runs[0]?.upMs ?? Number.NaN),
    down_ms_median: Math.round(median(runs.map((r) => r.downMs))),
    rss_mib_per_clickhouse_node: Math.round(median(runs.map((r) => r.nodeRss))),
    rss_mib_per_keeper: Math.round(median(runs.map((r) => r.keeperRss))),
    rss_mib_fault_proxy: Math.round(median(runs.map((r) => r.proxyRss))),
  };
  results.push(row);
  console.log(
    `${label}: up ${row.up_ms_median} ms (first ${row.up_ms_first} ms), down ${row.down_ms_median} ms, RSS node ${row.rss_mib_per_clickhouse_node} MiB, keeper ${row.rss_mib_per_keeper} MiB, proxy ${row.rss_mib_fault_proxy} MiB`,
  );
}
console.log(JSON.stringify({ bench: 'cluster', rounds, results }));
