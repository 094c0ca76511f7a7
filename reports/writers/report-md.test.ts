import { describe, expect, it } from 'vitest';
import { type RunId, seedOf } from '../../harness/base/index.ts';
import { NO_TALLY, classReport, insertPerformance, type JobReport, type ScenarioReport } from '../results/index.ts';
import { reportMarkdown } from './report-md.ts';

const scenario = (name: string, boundaries: Record<string, number>): ScenarioReport => ({
  name,
  sinkClass: 'ClickHouseBatchingSink',
  verdict: 'pass',
  seed: seedOf(7),
  path: undefined,
  replayCommand: `npm run chaos -- --sink ClickHouseBatchingSink --scenario ${name} --seed 7`,
  runs: 1,
  shrinkRuns: 0,
  stopped: 'covered',
  durationMs: 1000,
  phases: { trafficMs: 0, healMs: 0, checkMs: 0 },
  tally: { ...NO_TALLY, runs: 1, boundaries },
  anomalies: [],
  giveUps: [],
  notes: [],
  commands: [],
  configurations: [],
});

const job = (scenarios: ScenarioReport[]): JobReport => ({
  runId: 'r1' as RunId,
  backend: 'embedded',
  backendLimits: [],
  seed: seedOf(7),
  profile: 'ci',
  slice: null,
  startedAt: '2026-12-01T00:00:00.000Z',
  durationMs: 1000,
  clusterStartMs: 0,
  clusterMemory: null,
  verdict: 'pass',
  classes: { ClickHouseBatchingSink: classReport('exactly-once', scenarios, insertPerformance([])) },
  interrupted: false,
  selection: {
    classes: ['ClickHouseBatchingSink'],
    scenarios: scenarios.map((s) => s.name),
    serverDedup: 'alternate',
    path: null,
  },
  commit: null,
});

describe('report.md: the spec boundaries run', () => {
  it('lists, per class and scenario, each boundary the sink wrote under with its writes', () => {
    const md = reportMarkdown(
      job([scenario('server-errors', { host: 4, 'max_insert_attempts = 1': 2 }), scenario('network-degradation', {})]),
    );
    const section = md.split('### Spec boundaries run')[1]?.split('###')[0] ?? '';
    expect(section).toContain('| ClickHouseBatchingSink | server-errors | host (4) · max_insert_attempts = 1 (2) |');
    // A scenario whose sink wrote under no boundary has no row.
    expect(section).not.toContain('network-degradation');
  });

  it('has no such section when no scenario ran a boundary', () => {
    expect(reportMarkdown(job([scenario('network-degradation', {})]))).not.toContain('Spec boundaries');
  });
});
