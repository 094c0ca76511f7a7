import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { seedOf } from '../harness/base/index.ts';
import { clusterGroups, runChaos } from './chaos-run.ts';
import { DEFAULT_SHAPE, findScenarios } from './scenarios/index.ts';
import { findJobScenarios, jobPair, type JobPair } from './job-catalogue.ts';
import { matrixPairs } from './matrix-slice.ts';
import { JUDGED_CLASS_NAMES } from '../properties/base/index.ts';

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

describe('clusterGroups', () => {
  const pairs = matrixPairs([...JUDGED_CLASS_NAMES], findJobScenarios(undefined, 'ci')).map(jobPair);
  const drawn = { shards: 1, replicas: 2, shardNames: ['x'] };
  const shapeOf = (pair: JobPair) =>
    pair.kind === 'sink' && pair.scenario.name !== 'topology-guard' && pair.sinkClass.startsWith('AtMost')
      ? drawn
      : DEFAULT_SHAPE;
  const layout = (groups: ReturnType<typeof clusterGroups>) =>
    groups.map((group) => `${group.shape.shards}x${group.shape.replicas}${group.apart} ${group.pairs.length}`);

  // The default cluster first, then the longest: five Kafka engine pairs outweigh ten sink pairs.
  it('keeps the staged loader on the default cluster one lane at a time, and gives it its own side by side', () => {
    expect(layout(clusterGroups(pairs, shapeOf, false))).toEqual(['2x2 50', '2x2kafka 5', '1x2 10']);
    expect(layout(clusterGroups(pairs, shapeOf, true))).toEqual(['2x2 40', '2x2kafka 5', '2x2staged 10', '1x2 10']);
  });
});
