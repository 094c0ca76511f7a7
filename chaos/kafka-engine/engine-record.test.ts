import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEngineRun, type EngineObservation } from '../../properties/checkers/index.ts';
import { ENGINE_RUN_FILE, type EngineRun, recheckEngineRun, writeEngineRun } from './engine-record.ts';
import { expectedRow } from './source.ts';

const observation: EngineObservation = {
  topic: [
    { partition: 0, offset: 0, id: 1, broken: false },
    { partition: 0, offset: 1, id: 2, broken: false },
    { partition: 1, offset: 0, id: 3, broken: true },
  ],
  acknowledged: [1, 2, 3],
  stored: [
    { values: expectedRow(1), partition: 0, offset: 0 },
    { values: expectedRow(2), partition: 0, offset: 1 },
  ],
  replicaCounts: [{ shard: 's1', replica: 's1r1', rows: 2 }],
  committed: new Map([[0, 2]]),
  drained: true,
};

const run = (stored: EngineObservation): EngineRun => ({
  index: 0,
  phase: 'explore',
  database: 'db',
  input: { settings: { commitEveryBatch: false } } as EngineRun['input'],
  dedupOff: true,
  durationMs: 1,
  result: {
    check: checkEngineRun(stored, expectedRow),
    observation: stored,
    fired: true,
    notes: [],
    faults: ['kill(kf1)'],
    timings: { trafficMs: 1, healMs: 1, checkMs: 1 },
  },
});

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a stored Kafka engine run, judged again', () => {
  it('agrees with the record when nothing changed', () => {
    dir = mkdtempSync(join(tmpdir(), 'engine-record-'));
    writeEngineRun(dir, run(observation));
    const recheck = recheckEngineRun(dir);
    expect(recheck.recorded).toEqual([]);
    expect(recheck.rechecked).toEqual([]);
    expect(recheck.fired).toBe(true);
  });

  it('judges the stored observation, not the stored verdict: a row taken out of the file is lost', () => {
    dir = mkdtempSync(join(tmpdir(), 'engine-record-'));
    writeEngineRun(dir, run(observation));
    const file = join(dir, ENGINE_RUN_FILE);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { result: { observation: { stored: unknown[] } } };
    stored.result.observation.stored.shift();
    writeFileSync(file, JSON.stringify(stored));
    expect(recheckEngineRun(dir).rechecked.map((found) => found.category)).toEqual(['lost']);
  });

  it('refuses a file of another version, naming it', () => {
    dir = mkdtempSync(join(tmpdir(), 'engine-record-'));
    writeFileSync(join(dir, ENGINE_RUN_FILE), JSON.stringify({ version: 9, phase: 'explore' }));
    expect(() => recheckEngineRun(dir ?? '')).toThrow(/engine-run.json is version 9/);
  });
});
