import { describe, expect, it } from 'vitest';
import { type RunId, seedOf } from '../harness/base/index.ts';
import { classReport, insertPerformance, type JobReport, runTimelines } from '../reports/results/index.ts';
import { sampleEvents, scenarioReportOf } from '../reports/results/test-support.ts';
import { parseDuration, trendLine } from './soak-trend.ts';

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
  ])('%s is %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['1', '1d', 'h', '-1h', '1.5h'])('refuses %s with the accepted form', (text) => {
    expect(() => parseDuration(text)).toThrow(/--duration takes a number with s, m or h/);
  });
});

describe('trendLine', () => {
  const run = (clusterMemory: JobReport['clusterMemory']): JobReport => ({
    runId: 'r1' as RunId,
    backend: 'embedded',
    backendLimits: [],
    seed: seedOf(9),
    profile: 'full',
    slice: null,
    startedAt: '2026-11-30T00:00:00.000Z',
    durationMs: 1000,
    clusterStartMs: 2000,
    clusterMemory,
    verdict: 'pass',
    classes: {
      ClickHouseBatchingSink: classReport('exactly-once', [], insertPerformance(runTimelines(sampleEvents()))),
    },
    interrupted: false,
    selection: { classes: ['ClickHouseBatchingSink'], scenarios: [], serverDedup: 'alternate', path: null },
    commit: null,
  });

  it('carries verdicts, counts, latency, throughput and every cluster process peak RSS', () => {
    const line = trendLine(3, run({ s1r1: { rssMiB: 150, peakRssMiB: 201 }, k1: { rssMiB: 60, peakRssMiB: 61 } }), 123);
    expect(line).toMatchObject({
      iteration: 3,
      run_id: 'r1',
      seed: 9,
      verdict: 'pass',
      rss_mib: 123,
      cluster_peak_rss_mib: { s1r1: 201, k1: 61 },
    });
    expect((line.classes as Record<string, unknown>)['ClickHouseBatchingSink']).toMatchObject({
      verdict: 'inconclusive',
      attempted: 0,
      insert_latency_ms: { p50: 40, p95: 60, p99: 60, max: 60 },
      rows_per_second: expect.any(Number),
    });
  });

  it('names the cluster shapes its scenarios ran on, once each', () => {
    const base = run(null);
    const [result] = Object.values(base.classes);
    if (result === undefined) throw new Error('no class');
    const on = (cluster: string) => ({ ...scenarioReportOf({ name: cluster }), cluster });
    const shaped: JobReport = {
      ...base,
      classes: {
        ClickHouseBatchingSink: { ...result, scenarios: [on('2x2 (s1, s2)'), on('3x1 (a, b, c)'), on('2x2 (s1, s2)')] },
      },
    };
    expect(trendLine(1, shaped, 1).clusters).toEqual(['2x2 (s1, s2)', '3x1 (a, b, c)']);
  });

  it('says null for cluster memory a backend does not see', () => {
    expect(trendLine(1, run(null), 1).cluster_peak_rss_mib).toBeNull();
  });
});
