import { readFileSync } from 'node:fs';
import { HarnessError } from '../../harness/base/index.ts';
import {
  isJudgedClassName,
  JUDGED_CLASS_NAMES,
  type OwedGuarantee,
  type Verdict,
} from '../../properties/base/index.ts';
import type { DeliveryGuarantee } from '../../sinks/index.ts';
import type { JobReport } from './job-report.ts';
import { StoredShape } from './stored-shape.ts';

/**
 * The version of `run-result.json` this harness writes and reads. 2: a `Tally` per scenario,
 * class and configuration row; 3: each class's recovery figures after the heals
 * (`performance.recovery`); a file of another version is refused, never read by guesswork.
 */
export const RUN_RESULT_VERSION = 3;

const GUARANTEES: readonly DeliveryGuarantee[] = ['exactly-once', 'at-least-once', 'at-most-once'];
/** A configuration may owe nothing where a setting trades the guarantee away. */
const OWED: readonly OwedGuarantee[] = [...GUARANTEES, 'none'];
const VERDICTS: readonly Verdict[] = ['pass', 'violation', 'inconclusive', 'interrupted', 'infra-error'];

/** A class name read back: one of the sinks' or the Kafka engine's, or a line naming where it is not. */
function storedJudgedClass(value: unknown, where: string): void {
  if (typeof value === 'string' && isJudgedClassName(value)) return;
  throw new HarnessError(
    'STORED_SINK_CLASS_INVALID',
    `${where} names the class ${JSON.stringify(value)}, not one of ${JUDGED_CLASS_NAMES.join(', ')}; the file was written by another version of the harness or edited by hand: run again to rewrite it`,
  );
}

/** `run-result.json`'s text: the job report as the harness holds it, with its version. */
export const storedJobReport = (report: JobReport): string =>
  `${JSON.stringify({ version: RUN_RESULT_VERSION, ...report }, null, 2)}\n`;

function checkScenario(shape: StoredShape, value: unknown, path: string): void {
  const scenario = shape.object(value, path);
  shape.string(scenario.name, `${path}.name`);
  storedJudgedClass(scenario.sinkClass, `${shape.file} (${path}.sinkClass)`);
  shape.oneOf(scenario.verdict, `${path}.verdict`, VERDICTS);
  shape.number(scenario.seed, `${path}.seed`);
  if (scenario.path !== undefined) shape.string(scenario.path, `${path}.path`);
  shape.string(scenario.replayCommand, `${path}.replayCommand`);
  if (scenario.scheduleReplayCommand !== undefined)
    shape.string(scenario.scheduleReplayCommand, `${path}.scheduleReplayCommand`);
  for (const field of ['runs', 'shrinkRuns', 'durationMs'] as const) shape.number(scenario[field], `${path}.${field}`);
  shape.oneOf(scenario.stopped, `${path}.stopped`, ['covered', 'budget-spent']);
  shape.counts(scenario.phases, `${path}.phases`);
  shape.counts(scenario.tally, `${path}.tally`);
  shape.array(scenario.anomalies, `${path}.anomalies`).forEach((anomaly, i) => {
    const a = shape.object(anomaly, `${path}.anomalies[${i}]`);
    shape.string(a.category, `${path}.anomalies[${i}].category`);
    shape.number(a.count, `${path}.anomalies[${i}].count`);
    shape.array(a.examples, `${path}.anomalies[${i}].examples`);
  });
  for (const field of ['giveUps', 'notes', 'commands'] as const)
    shape.array(scenario[field], `${path}.${field}`).forEach((line, i) => shape.string(line, `${path}.${field}[${i}]`));
  shape.array(scenario.configurations, `${path}.configurations`).forEach((row, i) => {
    const at = `${path}.configurations[${i}]`;
    const r = shape.object(row, at);
    shape.string(r.configuration, `${at}.configuration`);
    shape.oneOf(r.owed, `${at}.owed`, OWED);
    shape.counts(r.tally, `${at}.tally`);
    if (r.view !== undefined) {
      const view = shape.object(r.view, `${at}.view`);
      shape.oneOf(view.owed, `${at}.view.owed`, OWED);
      shape.counts(view.tally, `${at}.view.tally`);
    }
  });
}

function checkJobReport(shape: StoredShape, value: unknown): JobReport {
  const run = shape.object(value, '');
  for (const field of ['runId', 'backend', 'profile', 'startedAt'] as const) shape.string(run[field], field);
  for (const field of ['seed', 'durationMs', 'clusterStartMs'] as const) shape.number(run[field], field);
  if (run.slice !== null) shape.string(run.slice, 'slice');
  if (run.commit !== null) shape.string(run.commit, 'commit');
  shape.array(run.backendLimits, 'backendLimits');
  if (run.faultProxy !== undefined && run.faultProxy !== null) shape.string(run.faultProxy, 'faultProxy');
  if (run.clusterMemory !== null) shape.counts(run.clusterMemory, 'clusterMemory');
  shape.oneOf(run.verdict, 'verdict', VERDICTS);
  shape.boolean(run.interrupted, 'interrupted');
  const selection = shape.object(run.selection, 'selection');
  shape
    .array(selection.classes, 'selection.classes')
    .forEach((name, i) => storedJudgedClass(name, `${shape.file} (selection.classes[${i}])`));
  shape
    .array(selection.scenarios, 'selection.scenarios')
    .forEach((name, i) => shape.string(name, `selection.scenarios[${i}]`));
  shape.string(selection.serverDedup, 'selection.serverDedup');
  if (selection.path !== null) shape.string(selection.path, 'selection.path');
  for (const [name, result] of Object.entries(shape.object(run.classes, 'classes'))) {
    const at = `classes.${name}`;
    storedJudgedClass(name, `${shape.file} (classes)`);
    const classReport = shape.object(result, at);
    shape.oneOf(classReport.guarantee, `${at}.guarantee`, GUARANTEES);
    shape.oneOf(classReport.verdict, `${at}.verdict`, VERDICTS);
    shape.counts(classReport.tally, `${at}.tally`);
    shape.object(shape.object(classReport.performance, `${at}.performance`).recovery, `${at}.performance.recovery`);
    shape
      .array(classReport.scenarios, `${at}.scenarios`)
      .forEach((scenario, i) => checkScenario(shape, scenario, `${at}.scenarios[${i}]`));
  }
  const { version: _version, ...report } = run;
  return report as unknown as JobReport;
}

/**
 * A job's `run-result.json` read back (to recheck it, or to merge slices): its version must be
 * this harness's, and its shape is checked field by field, so a cut, edited or older file is
 * refused with one line naming the file and the field, never read by guesswork.
 */
export function readJobReport(file: string): JobReport {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new HarnessError(
      'RUN_RESULT_DAMAGED',
      `${file} is not JSON (${(error as Error).message}): the run's result was cut or damaged`,
    );
  }
  const shape = new StoredShape(file);
  shape.version(value, RUN_RESULT_VERSION);
  return checkJobReport(shape, value);
}
