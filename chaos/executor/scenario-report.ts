import type { Seed } from '../../harness/base/index.ts';
import type { DeliveryGuarantee, SinkClassName } from '../../sinks/index.ts';
import { NO_DELIVERIES, type RunReadTally } from '../../properties/checkers/index.ts';
import { type JudgedClassName, OWED_BY_CLASS, type Verdict } from '../../properties/base/index.ts';
import { describeStep } from '../../properties/schedule/index.ts';
import { judgeScenario, owedGuarantee, owedOnView } from '../../properties/judge/index.ts';
import {
  mergeConfigurationRows,
  NO_TALLY,
  quantile,
  type ReadFigures,
  runTally,
  sumTallies,
  type ConfigurationRow,
  type ScenarioReport,
} from '../../reports/results/index.ts';
import type { ScenarioDefinition, TargetTable } from '../scenarios/index.ts';
import type { ExecutedRun, ScenarioOutcome } from './executed-run.ts';
import { failureKinds } from './exploration.ts';
import { scheduleReplayCommand } from './schedule-file.ts';
import { configurationOf, dedupMayBeOff } from './target-table.ts';

export interface ReplayLine {
  readonly sinkClass: JudgedClassName;
  readonly scenario: string;
  readonly seed: Seed;
  readonly path?: string | undefined;
  /** Classes whose runs alternate block dedup (token-less; every class on a single host): the failing run's setting, so the replay runs under it. */
  readonly serverDedupOff?: boolean | undefined;
}

export function replayCommand(line: ReplayLine): string {
  const dedup = line.serverDedupOff === undefined ? '' : ` --server-dedup ${line.serverDedupOff ? 'off' : 'on'}`;
  return `npm run chaos -- --sink ${line.sinkClass} --scenario ${line.scenario} --seed ${line.seed}${line.path ? ` --path ${line.path}` : ''}${dedup}`;
}

/** Shrink steps that violated the guarantee in another way than the counterexample: a second failure, said, not hidden. */
function slippedNotes(outcome: ScenarioOutcome): string[] {
  return outcome.runs
    .filter(
      (run) => run.phase === 'shrink' && run.check?.verdict === 'violation' && run.index !== outcome.counterexample,
    )
    .map(
      (run) =>
        `shrink step run ${run.index} failed otherwise (${[...failureKinds(run)].join(', ')}): not taken as the counterexample, which keeps the first violation's anomalies; its schedule is in run-${run.index}/schedule.json`,
    );
}

/** What the report says beside the verdict: the harness failures, shrink steps that failed otherwise, or what never happened and why. */
function notesOf(verdict: Verdict, outcome: ScenarioOutcome, explored: readonly ExecutedRun[]): string[] {
  if (verdict === 'violation') return slippedNotes(outcome);
  if (verdict === 'infra-error')
    return explored.filter((run) => run.infraError !== undefined).map((run) => `run ${run.index}: ${run.infraError}`);
  if (verdict !== 'inconclusive') return [];
  if (outcome.details.interrupted)
    return [`the check was interrupted after ${explored.length} run(s): a run outlived every budget`];
  const spent = `the budget ran out after ${explored.length} run(s) in ${(explored.reduce((total, run) => total + run.durationMs, 0) / 1000).toFixed(0)} s`;
  return outcome.ledger.missing().map((missing) => `${missing} (${spent})`);
}

/**
 * A scenario's report for one class, its verdict by the one rule (`judgeScenario`), with
 * notes naming what failed in the harness or what never happened. The tally comes from the runs
 * that define the verdict: the reported counterexample, or every exploring run (never the shrink
 * steps).
 */
export function scenarioReport(
  scenario: ScenarioDefinition,
  sinkClass: SinkClassName,
  outcome: ScenarioOutcome,
  seed: Seed,
  /** Where the runs were stored (`<report dir>/<run id>/<class>__<scenario>`): the counterexample's input is replayable from there. */
  scenarioDir?: string,
): ScenarioReport {
  const { runs, details } = outcome;
  const explored = runs.filter((run) => run.phase === 'explore');
  const counterexample = runs.find((run) => run.index === outcome.counterexample);
  const { verdict } = judgeScenario(
    runs.map((run) => ({ phase: run.phase, judgement: run.check, harnessFailed: run.infraError !== undefined })),
    { interrupted: false, harnessFailed: false, outlived: details.interrupted },
  );
  const defining = counterexample === undefined ? explored : [counterexample];
  const owed = OWED_BY_CLASS[sinkClass];
  const target = scenario.target ?? 'replicated';
  // Whether the runs alternate ClickHouse's block dedup (token-less classes; every class on a table whose dedup is under test).
  const alternatesDedup = dedupMayBeOff(target, owed.sendsToken);
  const path = details.failed && counterexample !== undefined ? (details.counterexamplePath ?? undefined) : undefined;
  const serverDedupOff = alternatesDedup ? (counterexample?.serverDedupOff ?? undefined) : undefined;
  const time = (pick: (run: ExecutedRun) => number) => defining.reduce((total, run) => total + pick(run), 0);
  return {
    name: scenario.name,
    sinkClass,
    verdict,
    seed,
    path,
    replayCommand: replayCommand({ sinkClass, scenario: scenario.name, seed, path, serverDedupOff }),
    scheduleReplayCommand:
      counterexample === undefined || scenarioDir === undefined
        ? undefined
        : scheduleReplayCommand({ sinkClass, scenario: scenario.name, scenarioDir, runIndex: counterexample.index }),
    runs: explored.length,
    shrinkRuns: runs.length - explored.length,
    stopped: outcome.stopped === 'covered' ? 'covered' : 'budget-spent',
    durationMs: runs.reduce((total, run) => total + run.durationMs, 0),
    phases: {
      trafficMs: time((run) => run.phases.trafficMs),
      healMs: time((run) => run.phases.healMs),
      checkMs: time((run) => run.phases.checkMs),
    },
    tally: sumTallies(defining.map((run) => runTally(run.check, run.serverDedupOff, alternatesDedup))),
    anomalies: counterexample?.check?.results.flatMap((result) => result.anomalies) ?? [],
    giveUps: defining.flatMap((run) => run.check?.results.find((result) => result.checker === 'give-up')?.notes ?? []),
    notes: notesOf(verdict, outcome, explored),
    commands: (counterexample ?? explored.at(-1))?.input.schedule.map(describeStep) ?? [],
    configurations: mergeConfigurationRows(configurationRows(explored, target, owed.guarantee)),
    reads: readFigures(defining),
  };
}

const READ_VIA = { local: "a replica's table", dist: 'through _dist' } as const;

/** What the defining runs' readers saw, by how they read (absent when no run read). */
function readFigures(runs: readonly ExecutedRun[]): ReadFigures[] | undefined {
  const tallies = runs.flatMap((run) => run.reads ?? []);
  const sequential = runs.some((run) => run.profile?.name === 'quorum_sequential');
  if (tallies.length === 0) return undefined;
  return (['local', 'dist'] as const).flatMap((via) => {
    const mine = tallies.filter((tally) => tally.via === via);
    if (mine.every((tally) => tally.reads + tally.failedReads === 0)) return [];
    const sum = (pick: (tally: RunReadTally) => number) => mine.reduce((total, tally) => total + pick(tally), 0);
    const windows = mine.flatMap((tally) => tally.windowsMs).sort((a, b) => a - b);
    return [
      {
        operation: READ_VIA[via],
        reads: sum((tally) => tally.reads),
        failedReads: sum((tally) => tally.failedReads),
        fractured: sum((tally) => tally.partInsert),
        loads: sum((tally) => tally.batches),
        splitReads: sum((tally) => tally.splitReads),
        windowMs:
          windows.length === 0
            ? null
            : { p50: quantile(windows, 0.5), p95: quantile(windows, 0.95), max: windows.at(-1) ?? 0 },
        stale: sum((tally) => tally.stale),
        wentBack: sum((tally) => tally.wentBack),
        sequential,
      },
    ];
  });
}

/** Each checked exploring run as a row of the configuration it wrote under, with the guarantee owed there. */
function* configurationRows(
  runs: readonly ExecutedRun[],
  target: TargetTable,
  guarantee: DeliveryGuarantee,
): Generator<ConfigurationRow> {
  for (const run of runs) {
    if (run.check === undefined) continue;
    const onView = owedOnView(guarantee, target, run.serverDedupOff);
    const view = run.check.viewCounts;
    const viewViolated = run.check.results.some(
      (result) => result.checker === 'view' && result.verdict === 'violation',
    );
    yield {
      configuration: configurationOf(target, run.serverDedupOff, run.input.spec, run.profile),
      owed: owedGuarantee(guarantee, target, run.serverDedupOff),
      tally: runTally(run.check, run.serverDedupOff, false),
      ...(onView === undefined || view === undefined
        ? {}
        : {
            view: {
              owed: onView,
              tally: { ...NO_TALLY, runs: 1, violations: viewViolated ? 1 : 0, counts: { ...NO_DELIVERIES, ...view } },
            },
          }),
    };
  }
}
