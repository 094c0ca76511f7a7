import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkStagedRun, type StagedObservation } from '../../properties/checkers/index.ts';
import { recheckStagedRun, STAGED_RUN_FILE, type StagedRun, writeStagedRun } from './staged-record.ts';

const observation: StagedObservation = {
  tables: ['events_a'],
  loads: [{ load: 1, rows: { events_a: 4 }, outcome: 'published', published: ['events_a'] }],
  final: [{ replica: 's1r1', counts: [{ table: 'events_a', load: 1, rows: 4, distinct: 4 }], wrongRows: [] }],
  reads: [
    { replica: 's1r1', startedAt: 5, endedAt: 7, counts: [] },
    { replica: 's1r1', startedAt: 30, endedAt: 33, counts: [{ table: 'events_a', load: 1, rows: 4, distinct: 4 }] },
  ],
  mustRefuse: [],
};

const run = (stored: StagedObservation): StagedRun => ({
  index: 0,
  phase: 'explore',
  database: 'db',
  input: { operation: 'move' } as StagedRun['input'],
  dedupOff: false,
  durationMs: 1,
  result: {
    check: checkStagedRun(stored, 'exactly-once'),
    observation: stored,
    outcomes: [{ outcome: 'published' }],
    fired: true,
    notes: [],
    faults: ['reset_peer(s1r1_client, 0ms)'],
    failedReads: 0,
    timings: { trafficMs: 1, healMs: 1, checkMs: 1 },
  },
});

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a stored staged run, judged again', () => {
  it('agrees with the record when nothing changed', () => {
    dir = mkdtempSync(join(tmpdir(), 'staged-record-'));
    writeStagedRun(dir, run(observation));
    expect(recheckStagedRun(dir)).toEqual({
      phase: 'explore',
      fired: true,
      infraError: false,
      recorded: [],
      rechecked: [],
    });
  });

  it('judges the stored reads, not the stored verdict: a read edited to see part of the load is fractured', () => {
    dir = mkdtempSync(join(tmpdir(), 'staged-record-'));
    writeStagedRun(dir, run(observation));
    const file = join(dir, STAGED_RUN_FILE);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as {
      result: { observation: { reads: { counts: { rows: number; distinct: number }[] }[] } };
    };
    const seen = stored.result.observation.reads[1]?.counts[0];
    if (seen !== undefined) Object.assign(seen, { rows: 3, distinct: 3 });
    writeFileSync(file, JSON.stringify(stored));
    expect(recheckStagedRun(dir).rechecked.map((found) => found.category)).toEqual(['fractured-read']);
  });

  it('refuses a file without the operation its run published with, or of another version', () => {
    dir = mkdtempSync(join(tmpdir(), 'staged-record-'));
    writeFileSync(join(dir, STAGED_RUN_FILE), JSON.stringify({ version: 1, phase: 'explore', input: {} }));
    expect(() => recheckStagedRun(dir ?? '')).toThrow(/no input.operation/);
    writeFileSync(join(dir, STAGED_RUN_FILE), JSON.stringify({ version: 9, phase: 'explore' }));
    expect(() => recheckStagedRun(dir ?? '')).toThrow(/staged-run.json is version 9/);
  });
});
