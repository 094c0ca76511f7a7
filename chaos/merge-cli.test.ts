import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunId, seedOf } from '../harness/base/index.ts';
import type { Verdict } from '../properties/base/index.ts';
import {
  NO_TALLY,
  RUN_RESULT_VERSION,
  classReport,
  insertPerformance,
  storedJobReport,
  type JobReport,
  type ScenarioReport,
} from '../reports/results/index.ts';
import { NO_DELIVERIES } from '../properties/checkers/index.ts';

const MERGE = fileURLToPath(new URL('./merge-cli.ts', import.meta.url));
const SINK = 'AtMostOnceClickHouseSink';
// Two scenarios covering the class: the catalogue gives slice 1/2 the first pair, 2/2 the second.
const SELECTION = {
  classes: [SINK],
  scenarios: ['unknown-outcome', 'at-most-once-queue'],
  serverDedup: 'alternate',
  path: null,
};

let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

const scenario = (name: string, verdict: Verdict): ScenarioReport => ({
  name,
  sinkClass: SINK,
  verdict,
  seed: seedOf(9),
  replayCommand: `npm run chaos -- --sink ${SINK} --scenario ${name} --seed 9`,
  runs: 1,
  shrinkRuns: 0,
  stopped: 'covered',
  durationMs: 1000,
  phases: { trafficMs: 0, healMs: 0, checkMs: 0 },
  tally: {
    ...NO_TALLY,
    counts: NO_DELIVERIES,
    inserts: { ok: 0, failed: 0, unknown: 0 },
    replays: 0,
    dedupHits: 0,
    refusals: 0,
    unknownOutcomes: { landed: 0, absent: 0, unresolved: 0 },
    serverDedup: null,
    faults: {},
  },
  anomalies: [],
  giveUps: [],
  notes: [],
  commands: [],
  configurations: [],
});

/** A slice's report directory as `npm run chaos -- --shard I/2` leaves it (what merge reads). */
function slice(index: number, scenarios: ScenarioReport[], selection: object = SELECTION): string {
  const dir = join(root, `slice-${index}`);
  mkdirSync(dir, { recursive: true });
  const run: JobReport = {
    runId: `run-${index}` as RunId,
    backend: 'embedded',
    backendLimits: [],
    seed: seedOf(9),
    profile: 'ci',
    slice: `${index}/2`,
    startedAt: '2026-12-01T00:00:00.000Z',
    durationMs: 1000,
    clusterStartMs: 0,
    clusterMemory: null,
    verdict: 'pass',
    classes: scenarios.length === 0 ? {} : { [SINK]: classReport('at-most-once', scenarios, insertPerformance([])) },
    interrupted: false,
    selection: selection as JobReport['selection'],
    commit: 'c0ffee',
  };
  writeFileSync(join(dir, 'run-result.json'), storedJobReport(run));
  writeFileSync(join(dir, 'history.jsonl'), '');
  return dir;
}

const merge = (...dirs: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', MERGE, '--report-dir', join(root, 'merged'), ...dirs], {
    encoding: 'utf8',
    timeout: 30_000,
  });

describe('npm run chaos:merge', () => {
  it('exits on the merged verdict as the chaos job does: 0 pass, 3 not verified', () => {
    root = mkdtempSync(join(tmpdir(), 'merge-cli-'));
    const pass = merge(
      slice(1, [scenario('unknown-outcome', 'pass')]),
      slice(2, [scenario('at-most-once-queue', 'pass')]),
    );
    expect(pass.status, pass.stderr).toBe(0);
    const first = slice(1, [scenario('unknown-outcome', 'pass')]);
    const unverified = merge(first, slice(2, [scenario('at-most-once-queue', 'inconclusive')]));
    expect(unverified.status, unverified.stderr).toBe(3);
  });

  it('refuses a slice that judged none of its pairs (the audit’s partial merge), exit 2 in one line', () => {
    root = mkdtempSync(join(tmpdir(), 'merge-cli-'));
    const result = merge(slice(1, [scenario('unknown-outcome', 'pass')]), slice(2, []));
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`slice 2/2 (run-2) has no verdict for ${SINK}/at-most-once-queue`);
  });

  it('refuses a slice written by an older harness (no version) or with a malformed field, exit 2 in one line naming it', () => {
    root = mkdtempSync(join(tmpdir(), 'merge-cli-'));
    const first = slice(1, [scenario('unknown-outcome', 'pass')]);
    const second = slice(2, [scenario('at-most-once-queue', 'pass')]);
    const file = join(second, 'run-result.json');
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    const { version: _, ...unversioned } = stored;
    writeFileSync(file, JSON.stringify(unversioned));
    const old = merge(first, second);
    expect(old.status).toBe(2);
    expect(old.stderr.trim().split('\n')).toHaveLength(1);
    expect(old.stderr).toContain(`${file}: version 1 (unversioned), this harness reads version ${RUN_RESULT_VERSION}`);
    stored.classes[SINK].scenarios[0].tally.counts.lost = 'none';
    writeFileSync(file, JSON.stringify(stored));
    const malformed = merge(first, second);
    expect(malformed.status).toBe(2);
    expect(malformed.stderr.trim().split('\n')).toHaveLength(1);
    expect(malformed.stderr).toContain(
      `${file}: classes.${SINK}.scenarios[0].tally.counts.lost should be a number, got "none"`,
    );
  });

  it('refuses a slice that ran with another --sink', () => {
    root = mkdtempSync(join(tmpdir(), 'merge-cli-'));
    const other = { ...SELECTION, classes: ['AtLeastOnceClickHouseSink'] };
    const result = merge(slice(1, [scenario('unknown-outcome', 'pass')]), slice(2, [], other));
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      'run-2 has classes ["AtLeastOnceClickHouseSink"], run-1 has ["AtMostOnceClickHouseSink"]',
    );
  });
});
