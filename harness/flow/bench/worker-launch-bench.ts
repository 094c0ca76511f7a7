/**
 * What one sink worker launch costs, from `launch()` to the worker's `started` message: the real
 * sinks from the bundled worker under plain node, against the same sinks from the sources under
 * tsx (a `workerRoot`, as the mutants' trees run). The two paths alternate, so load on a shared
 * machine falls on both alike; one launch of each comes first unmeasured (it builds the bundle
 * and fills tsx's transform cache). No cluster: the at-least-once sink dials nobody before its
 * first write. Wall time, and the worker's own CPU time up to `started` (`/proc/<pid>/stat`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../../base/index.ts';
import { sourceConfig } from '../source/source-config.ts';
import { FlowSupervisor, type SupervisorOptions } from '../supervisor.ts';

const CLOCK_TICKS_PER_S = 100;
const spec = { sink_class_name: 'AtLeastOnceClickHouseSink', name: 'events', parameters: { host: 'ch-1', table: 'e' } };
const PATHS: Record<string, Pick<SupervisorOptions, 'workerRoot'>> = { tsx: { workerRoot: PROJECT_ROOT }, bundled: {} };

/** utime + stime of a process so far, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2
    ? (sorted[Math.floor(middle)] ?? NaN)
    : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

async function launchOnce(supervisor: FlowSupervisor): Promise<{ wallMs: number; cpuMs: number }> {
  const t0 = performance.now();
  const worker = await supervisor.launch({ spec });
  const wallMs = performance.now() - t0;
  const cpu = cpuMs(worker.pid);
  await worker.stop();
  return { wallMs, cpuMs: cpu };
}

const { values } = parseArgs({ options: { launches: { type: 'string', default: '10' } } });
const launches = Number(values.launches);
const dir = mkdtempSync(join(tmpdir(), 'worker-launch-bench-'));
const supervisors = Object.fromEntries(
  Object.entries(PATHS).map(([name, hosting]) => [
    name,
    new FlowSupervisor({
      dir: join(dir, name),
      source: sourceConfig({ seed: 1, partitions: 1, messagesPerEpoch: 1 }),
      endpoints: { 'ch-1': 'http://127.0.0.1:1' },
      ...hosting,
    }),
  ]),
);
const first: Record<string, number> = {};
const runs: Record<string, { wallMs: number; cpuMs: number }[]> = {};
try {
  for (const [name, supervisor] of Object.entries(supervisors)) first[name] = (await launchOnce(supervisor)).wallMs;
  for (let i = 0; i < launches; i++)
    for (const [name, supervisor] of Object.entries(supervisors))
      (runs[name] ??= []).push(await launchOnce(supervisor));
} finally {
  await Promise.all(Object.values(supervisors).map((supervisor) => supervisor.close()));
  rmSync(dir, { recursive: true, force: true });
}
const results = Object.fromEntries(
  Object.entries(runs).map(([name, measured]) => [
    name,
    {
      wall_ms_median: Math.round(median(measured.map((run) => run.wallMs))),
      cpu_ms_median: Math.round(median(measured.map((run) => run.cpuMs))),
      first_launch_ms: Math.round(first[name] ?? NaN),
    },
  ]),
);
for (const [name, row] of Object.entries(results))
  console.log(
    `${name}: launch to started ${row.wall_ms_median} ms, worker CPU ${row.cpu_ms_median} ms (medians of ${launches}); first launch ${row.first_launch_ms} ms`,
  );
console.log(JSON.stringify({ bench: 'worker-launch', launches, results }));
