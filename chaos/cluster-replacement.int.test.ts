import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../harness/cluster/process/local-process.ts';
import { clusterProcesses, exitWithin, startChaos, waitFor, type StartedChaos } from './testing/chaos-cli.ts';

const stateDir = mkdtempSync(join(tmpdir(), 'chaos-replacement-state-'));
const reportDir = mkdtempSync(join(tmpdir(), 'chaos-replacement-reports-'));
let running: StartedChaos | undefined;
afterAll(async () => {
  // A failed expectation must not leave the runner's cluster behind: it goes down before its state does.
  if (running !== undefined && running.child.exitCode === null && running.child.signalCode === null) {
    process.kill(-(running.child.pid ?? 0), 'SIGTERM');
    await running.exited;
  }
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(reportDir, { recursive: true, force: true });
});

const CLASS = 'AtLeastOnceClickHouseSink';

describe('a started cluster after an infra-error', () => {
  it('is replaced before the next scenario, which is judged on a fresh one; the broken one leaves nothing behind', async () => {
    const run = startChaos(
      ['--seed', '7', '--sink', CLASS, '--scenario', 'unknown-outcome,network-degradation', '--report-dir', reportDir],
      stateDir,
    );
    running = run;
    await waitFor('the cluster', () => run.stderr().includes('cluster up in'), 90_000);
    const first = clusterProcesses(stateDir);
    const workerWriting = () =>
      readdirSync(reportDir).some((runId) => {
        const dir = join(reportDir, runId, `${CLASS}__unknown-outcome`, 'run-0', 'history');
        return existsSync(dir) && readdirSync(dir).some((file) => /^w\d+-\d+\.jsonl$/.test(file));
      });
    await waitFor('a worker of the first scenario', workerWriting, 60_000);
    // The fault proxy dies under the first scenario: nothing the harness did, an infra-error.
    const proxy = first.processes.find((record) => record.name === 'toxiproxy');
    expect(proxy, first.processes.map((record) => record.name).join(', ')).toBeDefined();
    process.kill(proxy?.pid ?? 0, 'SIGKILL');

    const exit = await exitWithin(run, 240_000);
    expect(exit.code, run.stderr()).toBe(3);
    // Whichever notices first names the proxy: the run's proxy watch, or a fault that was being put on
    // it at that moment (CI met the second: 'the fault proxy API at … could not be reached'). No run
    // follows the one that failed: its cluster is in a state nobody judged.
    expect(run.stderr()).toMatch(
      /\[1\/2\] AtLeastOnceClickHouseSink \/ unknown-outcome: infra-error \(1 runs, .*\[.*the fault proxy (at .* does not answer|API at .* could not be reached)/,
    );
    expect(run.stderr()).toContain(
      "replacing the cluster after AtLeastOnceClickHouseSink / unknown-outcome's infra-error",
    );
    expect(run.stderr()).toMatch(/\[2\/2\] AtLeastOnceClickHouseSink \/ network-degradation: pass/);
    expect(run.stderr().match(/cluster up in/g)).toHaveLength(2);

    expect(first.processes.filter(isAlive)).toEqual([]);
    expect(existsSync(first.dir)).toBe(false);
    expect(readdirSync(join(stateDir, 'registry'))).toEqual([]);
    const [runId] = readdirSync(reportDir);
    const runDir = join(reportDir, runId ?? '');
    expect(existsSync(join(runDir, 'cluster-logs', 'toxiproxy.log'))).toBe(true);
    expect(existsSync(join(runDir, 'cluster-logs-replacement-1', 'toxiproxy.log'))).toBe(true);
    expect(readFileSync(join(runDir, 'cluster-logs', 'k1.zookeeper.log'), 'utf8')).toMatch(
      / WARN org\.apache\.zookeeper\./,
    );
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as {
      classes: Record<string, { scenarios: Array<{ name: string; verdict: string }> }>;
    };
    expect(summary.classes[CLASS]?.scenarios.map((scenario) => [scenario.name, scenario.verdict])).toEqual([
      ['unknown-outcome', 'infra-error'],
      ['network-degradation', 'pass'],
    ]);
    // Two clusters and two scenarios end to end: 24-30 s alone, five runs in a row. Killed during
    // the first write, the proxy once held the run for good (an at-least-once sink retries for
    // ever): the run's proxy watch ends it; and the database drops, each waiting out a Keeper
    // session with the proxy dead, run at once.
  }, 300_000);
});
