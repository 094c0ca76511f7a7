import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../harness/cluster/process/local-process.ts';
import { clusterProcesses, startChaos, waitFor } from './testing/chaos-cli.ts';

const stateDir = mkdtempSync(join(tmpdir(), 'chaos-interrupt-state-'));
const reportDir = mkdtempSync(join(tmpdir(), 'chaos-interrupt-reports-'));
afterAll(() => {
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(reportDir, { recursive: true, force: true });
});

/** Processes still in the runner's process group (its Flow workers, tsx's children). */
function groupMembers(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.each([
  { name: 'SIGINT to the process group (Ctrl-C)', signal: 'SIGINT' as const, group: true, code: 130 },
  { name: 'SIGTERM to the runner (a cancelled CI job)', signal: 'SIGTERM' as const, group: false, code: 143 },
])('npm run chaos interrupted by $name', ({ signal, group, code }) => {
  it('stops within 10 s, records the run as interrupted, writes the report and leaves no process, port or cluster directory', async () => {
    const runReports = join(reportDir, signal);
    // The full profile's several runs keep the scenario in flight when the signal comes.
    const run = startChaos(
      [
        '--profile',
        'full',
        '--seed',
        '7',
        '--sink',
        'AtLeastOnceClickHouseSink',
        '--scenario',
        'unknown-outcome',
        '--report-dir',
        runReports,
      ],
      stateDir,
    );
    const pid = run.child.pid ?? 0;
    await waitFor('the cluster', () => run.stderr().includes('cluster up in'), 90_000);
    const cluster = clusterProcesses(stateDir);
    expect(cluster.processes.length).toBeGreaterThanOrEqual(6);
    // Into the scenario: a sink worker of the first run writing its own history file (the run's
    // merged history.jsonl appears only once the run ended).
    const workerWriting = () =>
      readdirSync(runReports).some((runId) => {
        const dir = join(runReports, runId, 'AtLeastOnceClickHouseSink__unknown-outcome', 'run-0', 'history');
        return existsSync(dir) && readdirSync(dir).some((file) => /^w\d+-\d+\.jsonl$/.test(file));
      });
    await waitFor('a worker of the first run', workerWriting, 60_000);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 1_000));
    const sent = Date.now();
    process.kill(group ? -pid : pid, signal);
    const exit = await run.exited;
    expect(exit.code, run.stderr()).toBe(code);
    expect(exit.at - sent).toBeLessThan(10_000);
    expect(run.stderr()).toMatch(new RegExp(`${signal} received`));

    await waitFor(
      'the last process',
      () => !cluster.processes.some(isAlive) && groupMembers(pid).length === 0,
      10_000 - (Date.now() - sent),
    );
    expect(existsSync(cluster.dir)).toBe(false);
    expect(readdirSync(join(stateDir, 'registry'))).toEqual([]);
    expect(readdirSync(join(stateDir, 'ports')).length).toBe(0);

    const [runId] = readdirSync(runReports).filter((entry) => existsSync(join(runReports, entry, 'summary.json')));
    expect(runId).toBeDefined();
    const summary = JSON.parse(readFileSync(join(runReports, runId ?? '', 'summary.json'), 'utf8')) as {
      verdict: string;
      classes: Record<string, { scenarios: Array<{ verdict: string; notes: string[] }> }>;
    };
    expect(summary.verdict).toBe('interrupted');
    const scenario = summary.classes.AtLeastOnceClickHouseSink?.scenarios[0];
    expect(scenario?.verdict).toBe('interrupted');
    expect(scenario?.notes.join(' ')).toMatch(new RegExp(`interrupted by ${signal}`));
  });
});
