import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Anomaly } from '../properties/checkers/index.ts';
import {
  type JudgedClassName,
  KAFKA_ENGINE_CLASS,
  mergeVerdicts,
  STAGED_LOADER_CLASS,
  type Verdict,
} from '../properties/base/index.ts';
import { isScenarioDirName, parseScenarioDirName, readJobReport } from '../reports/results/index.ts';
import { judge, judgeScenario, type RunJudgement } from '../properties/judge/index.ts';
import { CHECK_INPUT_FILE, type PathRecheck, pathScenarioVerdict, readCheckRecord } from './executor/index.ts';
import { ENGINE_RUN_FILE, recheckEngineRun } from './kafka-engine/index.ts';
import { recheckStagedRun, STAGED_RUN_FILE } from './staged-publication/index.ts';

export interface RunRecheck {
  readonly run: string;
  readonly phase: 'explore' | 'shrink';
  readonly recorded: Verdict;
  readonly rechecked: Verdict;
  /** `category×count`, sorted: what the verdict rests on. */
  readonly recordedAnomalies: readonly string[];
  readonly recheckedAnomalies: readonly string[];
}

export interface ScenarioRecheck {
  readonly sinkClass: JudgedClassName;
  readonly scenario: string;
  /** From the run's `run-result.json`; undefined when the report has none. */
  readonly recorded: Verdict | undefined;
  /** Undefined when the scenario left no run directory to judge. */
  readonly rechecked: Verdict | undefined;
  readonly runs: readonly RunRecheck[];
  /** Run directories without a stored check: the harness failed before the run's check, or a signal cut it short. */
  readonly unjudged: readonly string[];
}

const summarize = (anomalies: readonly Anomaly[]) =>
  anomalies.map((anomaly) => `${anomaly.category}×${anomaly.count}`).sort();

/** A run's verdict and anomalies as the checkers judge its stored files today, with its check for the scenario's ledger. */
export function recheckRun(runDir: string): RunRecheck & { readonly check: RunJudgement } {
  const { record, input } = readCheckRecord(runDir);
  const check = judge(input);
  return {
    run: runDir.split('/').at(-1) ?? runDir,
    phase: record.phase,
    recorded: record.verdict,
    rechecked: check.verdict,
    recordedAnomalies: summarize(record.anomalies),
    recheckedAnomalies: summarize(check.results.flatMap((result) => result.anomalies)),
    check,
  };
}

/**
 * Every scenario of a chaos run's report directory judged again from its files alone, by the
 * live job's rule (`judgeScenario`): each stored run by today's checkers; a run directory
 * without a check is a harness failure; an interruption, and a harness failure that left no run
 * directory, are facts only the record holds, so they are taken from it. A run that outlived
 * every budget is not recorded per run: such an `inconclusive` can re-check as `pass`. Needs no
 * cluster; a damaged or cut file is refused (`check-record.ts`).
 */
export function recheckReport(reportRunDir: string): ScenarioRecheck[] {
  const resultFile = join(reportRunDir, 'run-result.json');
  const recorded = existsSync(resultFile) ? readJobReport(resultFile) : undefined;
  const scenarioDirs = readdirSync(reportRunDir, { withFileTypes: true }).filter(
    (entry) => entry.isDirectory() && isScenarioDirName(entry.name),
  );
  return scenarioDirs.map((entry) => {
    const { sinkClass, scenario } = parseScenarioDirName(entry.name);
    const dir = join(reportRunDir, entry.name);
    const runDirs = readdirSync(dir)
      .filter((name) => /^run-\d+$/.test(name))
      .sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
    const recordedOf = () =>
      recorded?.classes[sinkClass]?.scenarios.find((candidate) => candidate.name === scenario)?.verdict;
    if (sinkClass === KAFKA_ENGINE_CLASS)
      return recheckPathScenario(sinkClass, ENGINE_RUN_FILE, recheckEngineRun, dir, runDirs, scenario, recordedOf());
    if (sinkClass === STAGED_LOADER_CLASS)
      return recheckPathScenario(sinkClass, STAGED_RUN_FILE, recheckStagedRun, dir, runDirs, scenario, recordedOf());
    const judged = runDirs.filter((name) => existsSync(join(dir, name, CHECK_INPUT_FILE)));
    const runs = judged.map((name) => recheckRun(join(dir, name)));
    const recordedVerdict = recordedOf();
    const unjudged = runDirs.filter((name) => !judged.includes(name));
    // A run directory without a check failed in the harness; an interruption, and a harness
    // failure the record names (before any run, or undoing a judged one), only the record holds.
    const rechecked =
      runDirs.length === 0
        ? undefined
        : judgeScenario(
            [
              ...runs.map((run) => ({ phase: run.phase, judgement: run.check, harnessFailed: false })),
              ...unjudged.map(() => ({ phase: 'explore' as const, harnessFailed: true })),
            ],
            {
              interrupted: recordedVerdict === 'interrupted',
              harnessFailed: recordedVerdict === 'infra-error',
              outlived: false,
            },
          ).verdict;
    return { sinkClass, scenario, recorded: recordedVerdict, rechecked, runs, unjudged };
  });
}

/**
 * A scenario of a path outside the sinks (the Kafka engine's `engine-run.json`, the staged
 * loader's `staged-run.json`) judged again: each run's stored observation through today's
 * checker, the scenario by the paths' one rule; an interruption only the record holds.
 */
function recheckPathScenario(
  sinkClass: JudgedClassName,
  runFile: string,
  recheckRun: (runDir: string) => PathRecheck,
  dir: string,
  runDirs: readonly string[],
  scenario: string,
  recordedVerdict: Verdict | undefined,
): ScenarioRecheck {
  // A run directory without its file was cut short (an interrupt): judged as the record says, like a sink's.
  const judged = runDirs.filter((name) => existsSync(join(dir, name, runFile)));
  const rechecks = judged.map((name) => ({ name, recheck: recheckRun(join(dir, name)) }));
  const verdictOf = (anomalies: readonly Anomaly[], infraError: boolean): Verdict =>
    anomalies.length > 0 ? 'violation' : infraError ? 'infra-error' : 'pass';
  const runs = rechecks.map(({ name, recheck }) => ({
    run: name,
    phase: recheck.phase,
    recorded: verdictOf(recheck.recorded, recheck.infraError),
    rechecked: verdictOf(recheck.rechecked, recheck.infraError),
    recordedAnomalies: summarize(recheck.recorded),
    recheckedAnomalies: summarize(recheck.rechecked),
  }));
  const rechecked =
    judged.length === 0
      ? undefined
      : pathScenarioVerdict(
          rechecks.map(({ recheck }) => ({
            phase: recheck.phase,
            violated: recheck.rechecked.length > 0,
            fired: recheck.fired,
            infraError: recheck.infraError,
          })),
          recordedVerdict === 'interrupted',
        );
  const unjudged = runDirs.filter((name) => !judged.includes(name));
  return { sinkClass, scenario, recorded: recordedVerdict, rechecked, runs, unjudged };
}

/** Whether a recheck agrees with the record: verdicts of scenarios and runs, and each run's anomalies. */
export function agrees(scenario: ScenarioRecheck): boolean {
  const runsAgree = scenario.runs.every(
    (run) => run.recorded === run.rechecked && run.recordedAnomalies.join() === run.recheckedAnomalies.join(),
  );
  return (
    runsAgree &&
    (scenario.rechecked === undefined || scenario.recorded === undefined || scenario.recorded === scenario.rechecked)
  );
}

export const overallVerdict = (scenarios: readonly ScenarioRecheck[]) =>
  mergeVerdicts(scenarios.flatMap((scenario) => (scenario.rechecked === undefined ? [] : [scenario.rechecked])));
