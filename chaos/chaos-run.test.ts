import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { seedOf } from '../harness/base/index.ts';
import { runChaos } from './chaos-run.ts';
import { findScenarios } from './scenarios/index.ts';

const reportDir = mkdtempSync(join(tmpdir(), 'chaos-run-memory-'));
afterAll(() => rmSync(reportDir, { recursive: true, force: true }));

describe('runChaos on a machine without the memory for its clusters', () => {
  it('starts no cluster, says so once per shape, and reports each pair inconclusive with the reason', async () => {
    const lines: string[] = [];
    const run = await runChaos({
      profile: 'ci',
      backend: 'embedded',
      seed: seedOf(6),
      classes: ['AtLeastOnceClickHouseSink'],
      scenarios: findScenarios(['unknown-outcome', 'retry-under-fault']),
      reportDir,
      keepCluster: false,
      serverDedup: 'alternate',
      log: pino({ level: 'silent' }),
      progress: (line) => lines.push(line),
      availableMemoryMiB: () => 1000,
    });
    expect(lines.filter((line) => line.includes('cluster up'))).toEqual([]);
    const refusals = lines.filter((line) => line.startsWith('not starting the '));
    // Seed 6 puts one pair on the default 2x2 and the other on its drawn 3x1: two shapes, one line each.
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toMatch(/needs about \d+ MiB at its peak .* this machine has 1000 MiB available$/);
    const scenarios = run.classes.AtLeastOnceClickHouseSink?.scenarios ?? [];
    expect(scenarios.map((scenario) => scenario.verdict)).toEqual(['inconclusive', 'inconclusive']);
    for (const scenario of scenarios) expect(scenario.notes.join(' ')).toMatch(/^not run: a \dx\d cluster/);
    expect(run.verdict).toBe('inconclusive');
    const [runId] = readdirSync(reportDir);
    expect(readFileSync(join(reportDir, runId ?? '', 'report.md'), 'utf8')).toContain('not run: a ');
  });
});
