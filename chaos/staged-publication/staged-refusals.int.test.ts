import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type StartedCluster } from '../../harness/cluster/index.ts';
import type { PublishOperation } from '../../sinks/index.ts';
import { startedClusterJournal, UndoJournal } from '../nemeses/index.ts';
import { STAGING_MISMATCHES, type StagingMismatch } from './staged-faults.ts';
import { runStaged, type StagedRunInput } from './staged-run.ts';

const log = pino({ level: 'silent' });
let cluster: StartedCluster;
let journal: UndoJournal;
const dir = mkdtempSync(join(tmpdir(), 'staged-refusals-'));

beforeAll(async () => {
  cluster = await startCluster('embedded', { topology: { shards: 1, replicas: 2, keepers: 1 }, logger: log });
  journal = new UndoJournal(startedClusterJournal(cluster), cluster);
}, 120_000);

afterAll(async () => {
  journal?.close();
  await cluster?.down();
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;
const run = (mismatch: StagingMismatch, operation: PublishOperation) => {
  runs += 1;
  const input: StagedRunInput = {
    operation,
    replicated: true,
    shape: { tables: 1, batches: 2, rowsPerBatch: 20 },
    loads: 2,
    arrivalMs: 20,
    readerPauseMs: 40,
    fault: { kind: 'refused-publication', mismatch },
    aim: { load: 0, table: 0 },
  };
  return runStaged(
    { cluster, journal, database: `staged_refusals_${runs}`, dedupOff: false, dir: join(dir, `run-${runs}`), log },
    input,
  );
};

describe("seed 002's publication requirements, on the real cluster", () => {
  it.each(STAGING_MISMATCHES)(
    'a staging table with %s set apart is refused by MOVE, every load reported refused, and the run counts',
    async (mismatch) => {
      const result = await run(mismatch, 'move');
      expect(result.outcomes.map((outcome) => outcome.outcome)).toEqual(['refused', 'refused']);
      expect(result.check.anomalies).toEqual([]);
      expect(result.fired, result.notes.join('\n')).toBe(true);
    },
  );

  it.each(['replace', 'attach'] as const)(
    'a storage policy apart is published by %s (a copy to the target disk), and no refusal is owed',
    async (operation) => {
      const result = await run('storage-policy', operation);
      expect(result.outcomes.map((outcome) => outcome.outcome)).toEqual(['published', 'published']);
      expect(result.check.anomalies).toEqual([]);
      expect(result.fired).toBe(false);
    },
  );
});
