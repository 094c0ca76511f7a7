/**
 * `npm run chaos:merge -- [--report-dir DIR] SLICE_RUN_DIR...`: joins the reports of the slices of
 * one matrix (`npm run chaos -- --shard I/N --seed S`, one per CI job) into one `summary.json`,
 * `report.md`, `report.html`, `junit.xml` and `history.jsonl` under `<report-dir>/<run-id>/`,
 * with the unsliced run's verdict rules. Exits as the chaos job does on the merged verdict (0
 * pass, 1 violation, 3 not verified); 2 when the slices do not make one matrix (one missing, one
 * twice, another seed, selection or commit, a pair missing from the slice that owes it).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { prepareWritableDir } from '../harness/cli/index.ts';
import { describeError, HarnessError, newRunId, PROJECT_ROOT } from '../harness/base/index.ts';
import {
  readJsonLines,
  exitStatusOf,
  mergeSliceRuns,
  MergeError,
  type MatrixCatalogue,
  type SliceRun,
  readJobReport,
  type TaggedEvent,
} from '../reports/results/index.ts';
import { writeRunReports } from '../reports/writers/index.ts';
import { JUDGED_CLASS_NAMES } from '../properties/base/index.ts';
import { matrixPairs, parseSlice, slicePairs } from './matrix-slice.ts';
import { findJobScenarios } from './job-catalogue.ts';

const CATALOGUE_ORDER = findJobScenarios(undefined).map((scenario) => scenario.name);

const CATALOGUE: MatrixCatalogue = {
  classRank: (name) => JUDGED_CLASS_NAMES.indexOf(name as never),
  scenarioRank: (name) => CATALOGUE_ORDER.indexOf(name),
  slicePairs: (selection, slice) =>
    slicePairs(matrixPairs(selection.classes, findJobScenarios(selection.scenarios)), parseSlice(slice)).map(
      ({ sinkClass, scenario }) => `${sinkClass}/${scenario.name}`,
    ),
};

function readSlice(dir: string): SliceRun {
  const file = join(dir, 'run-result.json');
  if (!existsSync(file))
    throw new HarnessError(
      'CLI_USAGE',
      `${dir} holds no run-result.json: give the run directories the slices wrote (reports/<run-id>/)`,
    );
  return {
    run: readJobReport(file),
    events: readJsonLines<TaggedEvent>(join(dir, 'history.jsonl')),
  };
}

function main(): number {
  const { values, positionals } = parseArgs({
    strict: true,
    allowPositionals: true,
    options: { 'report-dir': { type: 'string', default: join(PROJECT_ROOT, 'reports') } },
  });
  // One run reached twice (its directory and `latest`, which a glob also matches) counts once.
  const slices = [
    ...new Map(positionals.map((dir) => readSlice(resolve(dir))).map((slice) => [slice.run.runId, slice])).values(),
  ];
  const reportDir = prepareWritableDir(values['report-dir'], '--report-dir');
  const runId = newRunId();
  let merged;
  try {
    merged = mergeSliceRuns(slices, CATALOGUE, runId);
  } catch (error) {
    if (error instanceof MergeError) throw new HarnessError('CLI_USAGE', error.message);
    throw error;
  }
  const runDir = join(reportDir, runId);
  writeRunReports(merged.run, merged.timelines, runDir, reportDir);
  writeFileSync(
    join(runDir, 'history.jsonl'),
    slices.flatMap((slice) => slice.events.map((event) => `${JSON.stringify(event)}\n`)).join(''),
  );
  for (const [name, result] of Object.entries(merged.run.classes))
    process.stderr.write(`merge: ${name} (${result.guarantee}): ${result.verdict}\n`);
  process.stderr.write(`merge: ${merged.run.slice}: ${merged.run.verdict} — ${join(runDir, 'report.md')}\n`);
  return exitStatusOf(merged.run.verdict);
}

try {
  process.exit(main());
} catch (error) {
  process.stderr.write(`merge: ${describeError(error)}\n`);
  process.exit(2);
}
