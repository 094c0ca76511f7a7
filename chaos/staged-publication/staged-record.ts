import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from '../../harness/base/index.ts';
import { type Anomaly, checkStagedRun, type StagedObservation } from '../../properties/checkers/index.ts';
import { owedByOperation, type PublishOperation } from '../../sinks/index.ts';
import { type PathRecheck, readStoredPathRun, type RecordedPathRun } from '../executor/index.ts';
import type { StagedRunInput, StagedRunResult } from './staged-run.ts';

/** Where a staged run is stored, under its run directory. */
export const STAGED_RUN_FILE = 'staged-run.json';
const VERSION = 1;

/** One staged run as its scenario keeps it. */
export type StagedRun = RecordedPathRun<StagedRunInput, StagedRunResult>;

export function writeStagedRun(dir: string, run: StagedRun): void {
  writeFileSync(join(dir, STAGED_RUN_FILE), `${JSON.stringify({ version: VERSION, ...run })}\n`);
}

interface StoredStagedRun {
  readonly version: number;
  readonly phase: 'explore' | 'shrink';
  readonly input: { readonly operation: PublishOperation };
  readonly infraError?: string;
  readonly result?: {
    readonly fired: boolean;
    readonly check: { readonly anomalies: readonly Anomaly[] };
    readonly observation: StagedObservation;
  };
}

export function recheckStagedRun(runDir: string): PathRecheck {
  const file = join(runDir, STAGED_RUN_FILE);
  const stored = readStoredPathRun<StoredStagedRun>(file, VERSION, 'a staged run');
  if (!['move', 'replace', 'attach'].includes(stored.input?.operation))
    throw new HarnessError('STORED_FILE_INVALID', `${file} has no input.operation: what its run owed is unknown`);
  const result = stored.result;
  if (result === undefined)
    return {
      phase: stored.phase,
      fired: false,
      infraError: stored.infraError !== undefined,
      recorded: [],
      rechecked: [],
    };
  return {
    phase: stored.phase,
    fired: result.fired,
    infraError: false,
    recorded: result.check.anomalies,
    rechecked: checkStagedRun(result.observation, owedByOperation(stored.input.operation)).anomalies,
  };
}
