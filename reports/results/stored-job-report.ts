import { readFileSync } from 'node:fs';
import { HarnessError } from '../../harness/errors.ts';
import { storedSinkClass } from '../../harness/stored-sink-class.ts';
import type { JobReport } from './job-report.ts';

/**
 * A run's `run-result.json` read back (to recheck it, or to merge slices). The class names are
 * checked on the way in, as every consumer keys on them; the rest is the file this code wrote.
 */
export function readRunResult(file: string): JobReport {
  let run: JobReport;
  try {
    run = JSON.parse(readFileSync(file, 'utf8')) as JobReport;
  } catch (error) {
    throw new HarnessError(
      'RUN_RESULT_DAMAGED',
      `${file} is not JSON (${(error as Error).message}): the run's result was cut or damaged`,
    );
  }
  if (typeof run !== 'object' || run === null || typeof run.classes !== 'object' || run.classes === null)
    throw new HarnessError('RUN_RESULT_DAMAGED', `${file} is not a chaos run's result (no classes)`);
  for (const sinkClass of run.selection?.classes ?? []) storedSinkClass(sinkClass, `${file} (selection)`);
  for (const [name, result] of Object.entries(run.classes)) {
    storedSinkClass(name, `${file} (classes)`);
    for (const scenario of result.scenarios)
      storedSinkClass(scenario.sinkClass, `${file} (${name} / ${scenario.name})`);
  }
  return run;
}
