import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from '../../harness/base/index.ts';
import { type Anomaly, checkEngineRun, type EngineObservation } from '../../properties/checkers/index.ts';
import { type PathRecheck, readStoredPathRun, type RecordedPathRun } from '../executor/index.ts';
import type { EngineRunInput, EngineRunResult } from './engine-run.ts';
import { type EngineSettings, owedBy } from './engine-settings.ts';
import { expectedRow } from './source.ts';

export const ENGINE_RUN_FILE = 'engine-run.json';
const VERSION = 1;

/** One Kafka engine run as it is kept in the report: its input, what it read, and what was judged. */
/** One Kafka engine run as its scenario keeps it. */
export type EngineRun = RecordedPathRun<EngineRunInput, EngineRunResult>;

/** The observation as JSON holds it: the committed offsets as pairs. */
const storable = (observation: EngineObservation) => ({
  ...observation,
  committed: observation.committed === undefined ? null : [...observation.committed.entries()],
});

export function writeEngineRun(dir: string, run: EngineRun): void {
  const result =
    run.result === undefined ? undefined : { ...run.result, observation: storable(run.result.observation) };
  writeFileSync(join(dir, ENGINE_RUN_FILE), `${JSON.stringify({ version: VERSION, ...run, result })}\n`);
}

interface StoredEngineRun {
  readonly version: number;
  readonly phase: 'explore' | 'shrink';
  readonly input: { readonly settings: EngineSettings };
  readonly infraError?: string;
  readonly result?: {
    readonly fired: boolean;
    readonly check: { readonly anomalies: readonly Anomaly[] };
    readonly observation: Omit<EngineObservation, 'committed'> & { readonly committed: [number, number][] | null };
  };
}

export function recheckEngineRun(runDir: string): PathRecheck {
  const file = join(runDir, ENGINE_RUN_FILE);
  const stored = readStoredPathRun<StoredEngineRun>(file, VERSION, 'a Kafka engine run');
  if (typeof stored.input?.settings?.commitEveryBatch !== 'boolean')
    throw new HarnessError(
      'STORED_FILE_INVALID',
      `${file} has no input.settings.commitEveryBatch: what its run owed is unknown`,
    );
  const result = stored.result;
  if (result === undefined)
    return {
      phase: stored.phase,
      fired: false,
      infraError: stored.infraError !== undefined,
      recorded: [],
      rechecked: [],
    };
  const { committed, ...observation } = result.observation;
  const check = checkEngineRun(
    { ...observation, committed: committed === null ? undefined : new Map(committed) },
    expectedRow,
    owedBy(stored.input.settings),
  );
  return {
    phase: stored.phase,
    fired: result.fired,
    infraError: false,
    recorded: result.check.anomalies,
    rechecked: check.anomalies,
  };
}
