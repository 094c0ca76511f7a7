import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const SOAK = fileURLToPath(new URL('./soak.ts', import.meta.url));

describe('npm run soak on the embedded cluster', () => {
  const reportDir = mkdtempSync(join(tmpdir(), 'soak-'));
  afterAll(() => rmSync(reportDir, { recursive: true, force: true }));

  it('runs one iteration past a short deadline and appends its trend line', () => {
    const result = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        SOAK,
        '--duration',
        '1s',
        '--profile',
        'ci',
        '--sink',
        'AtMostOnceClickHouseSink',
        '--scenario',
        'live-reconfigure',
        '--seed',
        '5',
        '--report-dir',
        reportDir,
      ],
      { encoding: 'utf8', timeout: 180_000 },
    );
    // Coverage is earned within the budget, so one iteration of a healthy sink passes.
    expect(result.stderr).toContain('soak #1: [1/1] AtMostOnceClickHouseSink / live-reconfigure: ');
    expect(result.stderr).not.toContain('soak #2');
    const lines = readFileSync(join(reportDir, 'soak-trend.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '{}');
    expect(line).toMatchObject({ iteration: 1, seed: 5 });
    expect(line.verdict).toBe('pass');
    expect(result.status).toBe(0);
    expect(Object.keys(line.cluster_peak_rss_mib).sort()).toEqual(['k1', 's1r1', 's1r2', 's2r1', 's2r2', 'toxiproxy']);
    for (const peak of Object.values(line.cluster_peak_rss_mib)) expect(peak).toBeGreaterThan(10);
    const atMostOnce = line.classes.AtMostOnceClickHouseSink;
    expect(atMostOnce.insert_latency_ms.p50).toBeGreaterThan(0);
    expect(atMostOnce.rows_per_second).toBeGreaterThan(0);
  });
});
