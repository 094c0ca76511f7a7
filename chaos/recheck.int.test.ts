import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTs } from '../harness/cluster/testing/run-cli.ts';
import { CHECK_INPUT_FILE, type CheckRecord } from './executor/check-record.ts';
import { agrees, recheckReport } from './recheck.ts';

// Jepsen's rule: what a run stored is enough to judge it again. A short real chaos run, then
// `npm run check` on its files alone; then the same files with one acknowledged row taken out of
// what the replicas held, which only a checker reading the stored truth can call lost.

const stateDir = mkdtempSync(join(tmpdir(), 'recheck-state-'));
const reports = mkdtempSync(join(tmpdir(), 'recheck-reports-'));
afterAll(() => {
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(reports, { recursive: true, force: true });
});

describe('the offline re-check of a stored run', { timeout: 600_000 }, () => {
  let runDir = '';

  it('recomputes every verdict of a real run from its files alone, identical to the record', async () => {
    const run = await runTs(
      'chaos/cli.ts',
      ['--seed', '5', '--sink', 'ClickHouseBatchingSink', '--scenario', 'unknown-outcome', '--report-dir', reports],
      { CHAOS_STATE_DIR: stateDir },
      600_000,
    );
    expect(run.code, run.stderr).toBe(0);
    runDir = join(reports, 'latest');
    const scenarios = recheckReport(runDir);
    expect(
      scenarios.map((scenario) => [scenario.sinkClass, scenario.scenario, scenario.recorded, scenario.rechecked]),
    ).toEqual([['ClickHouseBatchingSink', 'unknown-outcome', 'pass', 'pass']]);
    expect(scenarios.every(agrees)).toBe(true);
    const cli = await runTs('chaos/check-cli.ts', [reports]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('every verdict agrees with the record');
  });

  it('calls a row lost once it is taken out of the stored truth, and says the record differs', async () => {
    const file = join(runDir, 'ClickHouseBatchingSink__unknown-outcome', 'run-0', CHECK_INPUT_FILE);
    const record = JSON.parse(readFileSync(file, 'utf8')) as CheckRecord;
    const truth = record.input.truth;
    const [victim] = truth.replicas[0]?.counts[0] ?? [];
    expect(victim).toBeDefined();
    const edited = {
      ...record,
      input: {
        ...record.input,
        truth: {
          ...truth,
          replicas: truth.replicas.map((replica) => ({
            ...replica,
            counts: replica.counts.filter(([id]) => id !== victim),
          })),
          viaDistributed: truth.viaDistributed.filter(([id]) => id !== victim),
        },
      },
    };
    writeFileSync(file, JSON.stringify(edited));
    const [scenario] = recheckReport(runDir);
    expect(scenario?.rechecked).toBe('violation');
    expect(scenario?.runs[0]?.recheckedAnomalies).toContain('lost×1');
    const cli = await runTs('chaos/check-cli.ts', [runDir]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/≠ ClickHouseBatchingSink \/ unknown-outcome: recorded pass, rechecked violation/);
    expect(cli.stdout).toMatch(/run-0 \(explore\): recorded pass \[\], rechecked violation \[lost×1\]/);
  });
});
