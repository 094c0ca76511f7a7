import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type StartedCluster } from '../../harness/cluster/index.ts';
import type { PublishOperation } from '../../sinks/index.ts';
import { startedClusterJournal, UndoJournal } from '../nemeses/index.ts';
import { type StagedFaultSpec, STAGING_MISMATCHES, type StagingMismatch } from './staged-faults.ts';
import { runStaged, type StagedRunInput } from './staged-run.ts';

const log = pino({ level: 'silent' });
let cluster: StartedCluster;
let journal: UndoJournal;
const dir = mkdtempSync(join(tmpdir(), 'staged-seed-cases-'));

beforeAll(async () => {
  cluster = await startCluster('embedded', { topology: { shards: 1, replicas: 3, keepers: 1 }, logger: log });
  journal = new UndoJournal(startedClusterJournal(cluster), cluster);
}, 120_000);

afterAll(async () => {
  journal?.close();
  await cluster?.down();
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;
const runWith = (fault: StagedFaultSpec, operation: PublishOperation, tables = 1) => {
  runs += 1;
  const input: StagedRunInput = {
    operation,
    replicated: true,
    shape: { tables, batches: 2, rowsPerBatch: 20 },
    loads: 3,
    arrivalMs: 20,
    readerPauseMs: 40,
    fault,
    aim: { load: 0, table: 0 },
  };
  return runStaged(
    { cluster, journal, database: `staged_seed_cases_${runs}`, dedupOff: false, dir: join(dir, `run-${runs}`), log },
    input,
  );
};
const run = (mismatch: StagingMismatch, operation: PublishOperation) =>
  runWith({ kind: 'refused-publication', mismatch }, operation);

describe("seed 002's publication requirements, on the real cluster", () => {
  it.each(STAGING_MISMATCHES)(
    'a staging table with %s set apart is refused by MOVE, every load reported refused, and the run counts',
    async (mismatch) => {
      const result = await run(mismatch, 'move');
      expect(result.outcomes.map((outcome) => outcome.outcome)).toEqual(['refused', 'refused', 'refused']);
      expect(result.check.anomalies).toEqual([]);
      expect(result.fired, result.notes.join('\n')).toBe(true);
    },
  );

  it.each(['replace', 'attach'] as const)(
    'a storage policy apart is published by %s (a copy to the target disk), and no refusal is owed',
    async (operation) => {
      const result = await run('storage-policy', operation);
      expect(result.outcomes.map((outcome) => outcome.outcome)).toEqual(['published', 'published', 'published']);
      expect(result.check.anomalies).toEqual([]);
      expect(result.fired).toBe(false);
    },
  );
});

describe("seed 004's new replica, on the real cluster", () => {
  it('joins before the second load, fetches what was published, and holds every load as the others do', async () => {
    const result = await runWith({ kind: 'replica-joins' }, 'move', 2);
    expect(result.fired, result.notes.join('\n')).toBe(true);
    expect(result.check.anomalies).toEqual([]);
    const finals = result.observation.final;
    expect(finals.map((final) => final.replica)).toEqual(['s1r1', 's1r2', 's1r3']);
    const counts = (index: number) =>
      JSON.stringify(
        [...(finals[index]?.counts ?? [])].sort((a, b) => a.load - b.load || a.table.localeCompare(b.table)),
      );
    expect(counts(2)).toBe(counts(0));
    expect(finals[0]?.counts.length).toBe(6);
  });
});
