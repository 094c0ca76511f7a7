import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunId, seedOf } from '../harness/base/index.ts';
import {
  classReport,
  insertPerformance,
  NO_TALLY,
  runTimelines,
  type JobReport,
  type ScenarioReport,
  type Tally,
} from './results/index.ts';
import { sampleEvents } from './results/test-support.ts';
import { writeRunReports } from './writers/index.ts';

const timelines = runTimelines(sampleEvents('ClickHouseBatchingSink__reset-peer-on-insert'));

const tally = (over: Partial<Tally>): Tally => ({
  ...NO_TALLY,
  runs: 2,
  counts: { attempted: 10, acknowledged: 10, lost: 0, duplicated: 0, unexpected: 0, recovered: 2, gaveUp: 0 },
  inserts: { ok: 4, failed: 0, unknown: 2 },
  replays: 2,
  dedupHits: 2,
  unknownOutcomes: { landed: 2, absent: 1, unresolved: 0 },
  faults: { reset_peer: 2 },
  ...over,
});

const scenario = (over: Partial<ScenarioReport>): ScenarioReport => ({
  name: 'reset-peer-on-insert',
  sinkClass: 'ClickHouseBatchingSink',
  verdict: 'pass',
  seed: seedOf(42),
  replayCommand: 'npm run chaos -- --sink ClickHouseBatchingSink --scenario reset-peer-on-insert --seed 42',
  runs: 2,
  shrinkRuns: 0,
  stopped: 'covered',
  durationMs: 1500,
  phases: { trafficMs: 1000, healMs: 200, checkMs: 300 },
  tally: tally({}),
  anomalies: [],
  giveUps: [],
  notes: [],
  commands: [],
  configurations: [],
  ...over,
});

function run(): JobReport {
  const broken = scenario({
    name: 'limit-data-on-insert',
    verdict: 'violation',
    path: '0:1',
    replayCommand: 'npm run chaos -- --sink ClickHouseBatchingSink --scenario limit-data-on-insert --seed 7 --path 0:1',
    tally: tally({
      violations: 1,
      counts: { attempted: 10, acknowledged: 10, lost: 0, duplicated: 3, unexpected: 0, recovered: 0, gaveUp: 0 },
    }),
    anomalies: [{ category: 'duplicated', count: 3, examples: ['1-0-1', '1-0-2', '1-0-3'] }],
    commands: ['limit_data(s1r1_client, 20B)', 'write(epoch 1)'],
  });
  const inconclusive = scenario({
    name: 'latency',
    sinkClass: 'AtMostOnceClickHouseSink',
    verdict: 'inconclusive',
    notes: ['fault latency never fired <on s1r1_client>'],
  });
  return {
    runId: '20261129-000000-abcd' as RunId,
    backend: 'embedded',
    backendLimits: ['async_insert executes synchronously'],
    seed: seedOf(42),
    profile: 'ci',
    slice: null,
    startedAt: '2026-11-29T00:00:00.000Z',
    durationMs: 5000,
    clusterStartMs: 2200,
    clusterMemory: { s1r1: { rssMiB: 180, peakRssMiB: 210 }, toxiproxy: { rssMiB: 80, peakRssMiB: 95 } },
    verdict: 'violation',
    classes: {
      ClickHouseBatchingSink: classReport('exactly-once', [scenario({}), broken], insertPerformance(timelines)),
      AtMostOnceClickHouseSink: classReport('at-most-once', [inconclusive], insertPerformance([])),
    },
    interrupted: false,
    selection: {
      classes: ['ClickHouseBatchingSink'],
      scenarios: ['reset-peer-on-insert'],
      serverDedup: 'alternate',
      path: null,
    },
    commit: null,
  };
}

describe('run reports', () => {
  const root = mkdtempSync(join(tmpdir(), 'reports-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const runDir = join(root, '20261129-000000-abcd');
  writeRunReports(run(), timelines, runDir, root);

  it('summary.json has the documented shape and sums scenarios per class', () => {
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({
      run_id: '20261129-000000-abcd',
      backend: 'embedded',
      backend_limits: ['async_insert executes synchronously'],
      seed: 42,
      verdict: 'violation',
    });
    const batching = summary.classes.ClickHouseBatchingSink;
    expect(batching).toMatchObject({
      guarantee: 'exactly-once',
      verdict: 'violation',
      counts: { attempted: 20, acknowledged: 20, lost: 0, duplicated: 3, unexpected: 0, recovered: 2, gaveUp: 0 },
      inserts: { ok: 8, failed: 0, unknown: 4 },
      replays: 4,
      dedup_hits: 4,
      refusals: 0,
      faults: { reset_peer: 4 },
      performance: { attempts: 6, ok_attempts: 3, insert_latency_ms: { p50: 40, p95: 60, p99: 60, max: 60 } },
    });
    expect(summary.classes.AtMostOnceClickHouseSink.performance).toEqual({
      attempts: 0,
      ok_attempts: 0,
      insert_latency_ms: null,
      rows_per_second: null,
      recovery: {
        heals: 0,
        stalled: 0,
        heal_to_first_ok_insert_ms: null,
        heal_to_drained_ms: null,
        largest_bound_ms: null,
      },
    });
    expect(batching.performance.recovery).toEqual({
      heals: 2,
      stalled: 1,
      heal_to_first_ok_insert_ms: { p50: 150, p95: 150 },
      heal_to_drained_ms: { p50: 210, p95: 210 },
      largest_bound_ms: 16_100,
    });
    expect(batching.scenarios[1]).toMatchObject({
      name: 'limit-data-on-insert',
      verdict: 'violation',
      seed: 42,
      path: '0:1',
    });
    expect(batching.scenarios[1].replay_command).toContain('--path 0:1');
    expect(summary.classes.AtMostOnceClickHouseSink.verdict).toBe('inconclusive');
    expect(summary.cluster_memory_mib).toEqual({
      s1r1: { rss: 180, peak_rss: 210 },
      toxiproxy: { rss: 80, peak_rss: 95 },
    });
  });

  it('junit.xml has one case per class x scenario, violations as failures, inconclusive as skipped', () => {
    const xml = readFileSync(join(runDir, 'junit.xml'), 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(xml).toContain('<testsuite name="ClickHouseBatchingSink" tests="2" failures="1" errors="0" skipped="0"');
    expect(xml).toContain(
      '<skipped message="inconclusive: declared coverage did not happen">fault latency never fired',
    );
  });

  it('report.md leads with the verdict and gives each failing scenario its replay command and schedule', () => {
    const md = readFileSync(join(runDir, 'report.md'), 'utf8');
    expect(md.split('\n')[0]).toBe('# Sink guarantee report — ❌ violation');
    expect(md).toContain('--scenario limit-data-on-insert --seed 7 --path 0:1');
    expect(md).toContain('limit_data(s1r1_client, 20B)');
    expect(md).toContain('**`duplicated`** (3): `1-0-1`, `1-0-2`, `1-0-3`');
    expect(md).toContain('Peak RSS per cluster process (MiB): `s1r1` 210 · `toxiproxy` 95.');
    expect(md).toContain('### Recovery after the heals');
    expect(md).toContain('| ClickHouseBatchingSink | 2 | 1 | 0.1 / 0.1 | 0.2 / 0.2 | 16.1 |');
  });

  it('report.html draws the matrix and, per scenario, the most eventful run with its fault windows', () => {
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toContain('<script');
    // matrix: one verdict cell per class x scenario that exists, a dash where a class has none
    expect(html.match(/<td class="verdict"/g)).toHaveLength(2 + 3);
    expect(html).toContain('<td class="none">—</td>');
    expect(html).toContain(
      '<tr><td>ClickHouseBatchingSink</td><td>2</td><td>1</td><td>0.1 / 0.1</td><td>0.2 / 0.2</td><td>16.1</td></tr>',
    );
    // the reset-peer-on-insert panel shows run-1: two fault windows, four attempts, three marks
    const panel = html.slice(html.indexOf('<h3>reset-peer-on-insert'), html.indexOf('<h3>limit-data-on-insert'));
    expect(panel).toContain('run-1 of 2');
    expect(panel.match(/<rect class="fault"/g)).toHaveLength(2);
    expect(panel.match(/<circle /g)).toHaveLength(3);
    expect(panel).toContain('never completed (the worker died): 3 rows, at 1.00 s');
    expect(panel.match(/<line x1=/g)?.length).toBeGreaterThanOrEqual(3);
    // the ok retry's 3 rows completed at 0.64 s: 100 ms bins over a 2 s run
    expect(panel.match(/<rect class="bar"/g)).toHaveLength(1);
    expect(panel).toContain('30 rows/s from 0.6 s to 0.7 s');
    expect(panel).toContain('reset_peer: reset_peer on s1r1_client &#60;downstream&#62;');
    // text from the run is escaped, a failing scenario has its replay line
    expect(html).toContain('fault latency never fired &#60;on s1r1_client&#62;');
    expect(html).toContain('--scenario limit-data-on-insert --seed 7 --path 0:1');
  });

  it('points latest at the run', () => {
    expect(readlinkSync(join(root, 'latest'))).toBe('20261129-000000-abcd');
  });
});

describe('give-ups in the reports', () => {
  const root = mkdtempSync(join(tmpdir(), 'reports-give-up-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const gaveUp = scenario({
    name: 'server-errors',
    tally: tally({
      counts: { attempted: 10, acknowledged: 10, lost: 0, duplicated: 0, unexpected: 0, recovered: 0, gaveUp: 4 },
      giveUps: 1,
    }),
    giveUps: ['gave up: partition 0 batch 2 (token 1-0-9) after 5 attempt(s), unclassified: Too many parts <0>'],
  });
  const result: JobReport = {
    ...run(),
    verdict: 'pass',
    classes: { ClickHouseBatchingSink: classReport('exactly-once', [gaveUp], insertPerformance(timelines)) },
  };
  const runDir = join(root, result.runId);
  writeRunReports(result, timelines, runDir, root);

  it('summary.json counts them per class and lists each per scenario', () => {
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    expect(summary.classes.ClickHouseBatchingSink.give_ups).toBe(1);
    expect(summary.classes.ClickHouseBatchingSink.counts.gaveUp).toBe(4);
    expect(summary.classes.ClickHouseBatchingSink.scenarios[0].give_ups).toEqual([
      'gave up: partition 0 batch 2 (token 1-0-9) after 5 attempt(s), unclassified: Too many parts <0>',
    ]);
  });

  it('report.md counts them per class and lists each, apart from the anomalies', () => {
    const md = readFileSync(join(runDir, 'report.md'), 'utf8');
    expect(md).toContain('| gave up (rows held back) |');
    expect(md).toMatch(/\| 1 \(4\) \|/);
    expect(md).toContain('### Give-ups');
    expect(md).toContain(
      '- ClickHouseBatchingSink / server-errors: `gave up: partition 0 batch 2 (token 1-0-9) after 5 attempt(s)',
    );
  });

  it('report.html shows them in their scenario, escaped', () => {
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    expect(html).toContain('gave up 1 (rows held back 4)');
    expect(html).toContain(
      '<ul class="give-ups"><li>gave up: partition 0 batch 2 (token 1-0-9) after 5 attempt(s), unclassified: Too many parts &#60;0&#62;</li></ul>',
    );
  });
});

describe('the configuration matrix in the reports', () => {
  const root = mkdtempSync(join(tmpdir(), 'reports-configurations-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const row = (configuration: string, owed: 'exactly-once' | 'at-least-once', duplicated: number) => ({
    configuration,
    owed,
    tally: {
      ...NO_TALLY,
      runs: 1,
      counts: { ...NO_TALLY.counts, duplicated },
      dedupHits: owed === 'exactly-once' ? 2 : 0,
    },
  });
  const plain = scenario({
    name: 'plain-merge-tree',
    configurations: [
      row('MergeTree, 1 host per shard, no dedup window · async_insert off', 'at-least-once', 4),
      row('MergeTree, 1 host per shard, non_replicated_deduplication_window · async_insert off', 'exactly-once', 0),
    ],
  });
  const replicated = scenario({
    name: 'unknown-outcome',
    configurations: [row('ReplicatedMergeTree · async_insert off', 'exactly-once', 0)],
  });
  const result: JobReport = {
    ...run(),
    verdict: 'pass',
    classes: {
      ClickHouseBatchingSink: classReport('exactly-once', [plain, replicated], insertPerformance(timelines)),
    },
  };
  const runDir = join(root, result.runId);
  writeRunReports(result, timelines, runDir, root);

  it('report.md says per configuration what the seed owes there and whether it held', () => {
    const md = readFileSync(join(runDir, 'report.md'), 'utf8');
    expect(md).toContain('### Configurations');
    expect(md).toContain(
      '| ClickHouseBatchingSink | MergeTree, 1 host per shard, no dedup window · async_insert off | at-least-once (degraded from exactly-once) | 1 | held | 0 | 4 | 0 |',
    );
    expect(md).toContain(
      '| ClickHouseBatchingSink | ReplicatedMergeTree · async_insert off | exactly-once | 1 | held | 0 | 0 | 2 |',
    );
  });

  it('summary.json and report.html carry the same rows', () => {
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    expect(
      summary.classes.ClickHouseBatchingSink.configurations.map((c: { guarantee_owed: string }) => c.guarantee_owed),
    ).toEqual(['at-least-once', 'exactly-once', 'exactly-once']);
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    expect(html).toContain('<td>at-least-once (degraded from exactly-once)</td>');
  });
});
