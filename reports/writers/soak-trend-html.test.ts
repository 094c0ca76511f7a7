import { describe, expect, it } from 'vitest';
import type { TrendLine } from '../results/index.ts';
import { soakTrendHtml } from './soak-trend-html.ts';

const line = (iteration: number, over: Partial<TrendLine> = {}): TrendLine => ({
  version: 1,
  iteration,
  run_id: `r${iteration}`,
  seed: 100 + iteration,
  verdict: 'pass',
  duration_ms: 200_000 + iteration * 1000,
  rss_mib: 180 + iteration,
  cluster_peak_rss_mib: { s1r1: 300 + iteration, k1: 90, toxiproxy: 70 },
  reproduced: null,
  classes: {
    ClickHouseBatchingSink: {
      verdict: 'pass',
      attempted: 5000 + iteration,
      insert_latency_ms: { p50: 20 + iteration, p95: 80 + iteration },
      rows_per_second: 900,
    },
    'AtMostOnce<Sink>': { verdict: 'pass', insert_latency_ms: null, rows_per_second: null },
  },
  ...over,
});

describe('soakTrendHtml', () => {
  const lines = [
    line(1),
    line(2, {
      verdict: 'violation',
      reproduced: true,
      classes: {
        ...line(2).classes,
        ClickHouseBatchingSink: { verdict: 'violation', insert_latency_ms: null, rows_per_second: 10 },
      },
    }),
    line(3, { verdict: 'inconclusive', reproduced: false }),
  ];
  const html = soakTrendHtml(lines);

  it('heads the page with how many iterations passed', () => {
    expect(html).toContain('Soak trend: 1 of 3 iterations passed');
  });

  it('draws a verdict per class and iteration, and labels re-runs', () => {
    expect(html).toContain('violation · reproduced');
    expect(html).toContain('inconclusive · not reproduced');
    expect(html.match(/<td class="verdict"/g)).toHaveLength(9);
    expect(html).toContain('AtMostOnce&#60;Sink&#62;');
  });

  it('plots latency, throughput, every process peak RSS and the runner, one point per value', () => {
    for (const title of [
      'INSERT latency p95 per class',
      'Rows per second of successful INSERTs per class',
      'Peak RSS per process',
      'Iteration wall time',
    ])
      expect(html).toContain(title);
    for (const member of ['s1r1', 'k1', 'toxiproxy', 'runner']) expect(html).toContain(`>${member}</text>`);
    expect(html).toContain('ClickHouseBatchingSink, iteration #3: 83.0 ms');
    // Iteration 2 has no latency for the class: no point is invented for it.
    expect(html).not.toMatch(/ClickHouseBatchingSink, iteration #2: [\d.]+ ms/);
    expect(html).toContain('ClickHouseBatchingSink, iteration #2: 10.0 rows/s');
  });

  it('plots the messages each class was given, and names the clusters of an iteration', () => {
    expect(html).toContain('Messages written per class');
    expect(html).toContain('ClickHouseBatchingSink, iteration #3: 5003.0 messages');
    // 5003 messages in 203 s: 88,723 an hour.
    expect(html).toContain('ClickHouseBatchingSink, iteration #3: 88723.2 messages/h');
    // Iteration 2 counted none for the class: the class with the fewest an hour, over all three iterations (606 s).
    expect(html).toContain('Fewest messages per hour of soak: 59,430 (ClickHouseBatchingSink), over 10 min');
    expect(soakTrendHtml([line(4, { clusters: ['2x2 (s1, s2)', '3x1 (a, bb, c_c)'] })])).toContain(
      'seed 104, 204 s, clusters 2x2 (s1, s2) and 3x1 (a, bb, c_c)',
    );
  });

  it('says so when there is no iteration or no data', () => {
    expect(soakTrendHtml([])).toContain('no iteration yet');
    expect(soakTrendHtml([line(1, { cluster_peak_rss_mib: null })])).toContain('Peak RSS per process');
  });
});
