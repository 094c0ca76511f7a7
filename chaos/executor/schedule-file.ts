import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from '../../harness/errors.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/arb-sink-spec.ts';
import type { Workload } from '../../properties/arbitraries/arb-workload.ts';
import {
  parseScheduleFile,
  SCHEDULE_FILE,
  SCHEDULE_FILE_VERSION,
  type ScheduleFile,
} from '../../properties/schedule/schedule-file.ts';
import type { Schedule } from '../../properties/schedule/schedule-step.ts';
import { checkFaultSpec } from '../nemeses/families/registry.ts';

/** A run's input as the executor holds it (`RunInput`). */
interface RunInputOf {
  readonly workload: Workload;
  readonly spec: RawSinkSpec;
  readonly schedule: Schedule;
  readonly sourceSeed: number;
}

/** Writes the run's whole input beside its history, before it runs: a run that breaks mid-way is replayable too. */
export function writeScheduleFile(dir: string, input: RunInputOf, serverDedupOff: boolean): void {
  const file: ScheduleFile = {
    version: SCHEDULE_FILE_VERSION,
    sourceSeed: input.sourceSeed,
    serverDedupOff,
    workload: input.workload,
    spec: input.spec,
    steps: input.schedule,
  };
  writeFileSync(join(dir, SCHEDULE_FILE), `${JSON.stringify(file, null, 2)}\n`);
}

/** Reads and checks a stored `schedule.json` (`--schedule FILE`): one line naming what is wrong, before anything starts. */
export function readScheduleFile(path: string): ScheduleFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HarnessError(
      'CLI_USAGE',
      `--schedule ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      {
        cause: error,
      },
    );
  }
  return parseScheduleFile(text, path, checkFaultSpec);
}

/** The run input a stored schedule replays. */
export const runInputOf = (file: ScheduleFile): RunInputOf => ({
  workload: file.workload,
  spec: file.spec,
  schedule: file.steps,
  sourceSeed: file.sourceSeed,
});
