import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aggregateClass } from './aggregate.ts';
import type { RunResult, ScenarioResult } from './run-result.ts';
import { writeRunReports } from './write-run.ts';

const scenario = (over: Partial<ScenarioResult>): ScenarioResult => ({
  name: 'reset-peer-on-insert',
  sinkClass: 'ClickHouseBatchingSink',
  verdict: 'pass',
  seed: 42,
  replayCommand: 'npm run chaos -- --sink ClickHouseBatchingSink --scenario reset-peer-on-insert --seed 42',
  runs: 2,
  durationMs: 1500,
  phases: { clusterMs: 0, trafficMs: 1000, healMs: 200, checkMs: 300 },
  counts: { attempted: 10, acknowledged: 10, lost: 0, duplicated: 0, unexpected: 0, recovered: 2 },
  inserts: { ok: 4, failed: 0, unknown: 2 },
  replays: 2,
  dedupHits: 2,
  refusals: 0,
  faults: { reset_peer: 2 },
  anomalies: [],
  notes: [],
  commands: [],
  ...over,
});

function run(): RunResult {
  const broken = scenario({
    name: 'limit-data-on-insert',
    verdict: 'violation',
    path: '0:1',
    replayCommand: 'npm run chaos -- --sink ClickHouseBatchingSink --scenario limit-data-on-insert --seed 7 --path 0:1',
    counts: { attempted: 10, acknowledged: 10, lost: 0, duplicated: 3, unexpected: 0, recovered: 0 },
    anomalies: [{ category: 'duplicated', count: 3, examples: ['1-0-1', '1-0-2', '1-0-3'] }],
    commands: ['limit_data(s1r1_client, 20B)', 'write(epoch 1)'],
  });
  const inconclusive = scenario({ name: 'latency', sinkClass: 'AtMostOnceClickHouseSink', verdict: 'inconclusive', notes: ['fault latency never fired'] });
  return {
    runId: '20261129-000000-abcd',
    backend: 'embedded',
    backendLimits: ['async_insert executes synchronously'],
    seed: 42,
    profile: 'ci',
    startedAt: '2026-11-29T00:00:00.000Z',
    durationMs: 5000,
    clusterStartMs: 2200,
    verdict: 'violation',
    classes: {
      ClickHouseBatchingSink: aggregateClass('exactly-once', [scenario({}), broken]),
      AtMostOnceClickHouseSink: aggregateClass('at-most-once', [inconclusive]),
    },
  };
}

describe('run reports', () => {
  const root = mkdtempSync(join(tmpdir(), 'reports-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const runDir = join(root, '20261129-000000-abcd');
  writeRunReports(run(), runDir, root);

  it('summary.json has the documented shape and sums scenarios per class', () => {
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ run_id: '20261129-000000-abcd', backend: 'embedded', backend_limits: ['async_insert executes synchronously'], seed: 42, verdict: 'violation' });
    const batching = summary.classes.ClickHouseBatchingSink;
    expect(batching).toMatchObject({
      guarantee: 'exactly-once',
      verdict: 'violation',
      counts: { attempted: 20, acknowledged: 20, lost: 0, duplicated: 3, unexpected: 0, recovered: 2 },
      inserts: { ok: 8, failed: 0, unknown: 4 },
      replays: 4,
      dedup_hits: 4,
      refusals: 0,
      faults: { reset_peer: 4 },
    });
    expect(batching.scenarios[1]).toMatchObject({ name: 'limit-data-on-insert', verdict: 'violation', seed: 42, path: '0:1' });
    expect(batching.scenarios[1].replay_command).toContain('--path 0:1');
    expect(summary.classes.AtMostOnceClickHouseSink.verdict).toBe('inconclusive');
  });

  it('junit.xml has one case per class x scenario, violations as failures, inconclusive as skipped', () => {
    const xml = readFileSync(join(runDir, 'junit.xml'), 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(xml).toContain('<testsuite name="ClickHouseBatchingSink" tests="2" failures="1" errors="0" skipped="0"');
    expect(xml).toContain('<skipped message="inconclusive: declared coverage did not happen">fault latency never fired');
  });

  it('report.md leads with the verdict and gives each failing scenario its replay command and schedule', () => {
    const md = readFileSync(join(runDir, 'report.md'), 'utf8');
    expect(md.split('\n')[0]).toBe('# Sink guarantee report — ❌ violation');
    expect(md).toContain('--scenario limit-data-on-insert --seed 7 --path 0:1');
    expect(md).toContain('limit_data(s1r1_client, 20B)');
    expect(md).toContain('**duplicated** (3): 1-0-1, 1-0-2, 1-0-3');
  });

  it('points latest at the run', () => {
    expect(readlinkSync(join(root, 'latest'))).toBe('20261129-000000-abcd');
  });
});
