import type { SinkClassName } from '../../sinks/domain/sink-class-name.ts';
import { NO_EVIDENCE, addEvidence } from '../../properties/checkers/coverage-ledger.ts';
import type { Evidence } from '../../properties/checkers/coverage-checker.ts';
import { NO_DELIVERIES, type DeliveryCounts } from '../../properties/checkers/total-queue-checker.ts';
import type { ConfigurationResult, FaultCounts, ScenarioResult } from '../../reports/run-result.ts';
import type { DeliveryGuarantee } from '../../sinks/sink-classes.ts';
import { OWED_BY_CLASS } from '../../properties/owed-by-class.ts';
import type { ScenarioDefinition, TargetTable } from '../scenarios/scenario.ts';
import type { ExecutedRun, ScenarioOutcome } from './executed-run.ts';
import { addConfigurations } from '../../reports/aggregate.ts';
import type { Verdict } from '../../properties/verdict.ts';
import { describeStep } from '../../properties/schedule/schedule-step.ts';
import { judgeScenario, owedGuarantee, owedOnView } from '../../properties/judge/index.ts';
import { configurationOf, dedupMayBeOff } from './target-table.ts';

/** Faults that fired, sink crashes included (as `sink_crash`, the catalogue's name for them). */
function faultCounts(evidence: Evidence): FaultCounts {
  const crashes = [...evidence.crashes.values()].reduce((total, n) => total + n, 0);
  return { ...Object.fromEntries(evidence.faultsFired), ...(crashes > 0 ? { sink_crash: crashes } : {}) };
}

export interface ReplayLine {
  readonly sinkClass: SinkClassName;
  readonly scenario: string;
  readonly seed: number;
  readonly path?: string | undefined;
  /** Classes whose runs alternate block dedup (token-less; every class on a single host): the failing run's setting, so the replay runs under it. */
  readonly serverDedupOff?: boolean | undefined;
}

export function replayCommand(line: ReplayLine): string {
  const dedup = line.serverDedupOff === undefined ? '' : ` --server-dedup ${line.serverDedupOff ? 'off' : 'on'}`;
  return `npm run chaos -- --sink ${line.sinkClass} --scenario ${line.scenario} --seed ${line.seed}${line.path ? ` --path ${line.path}` : ''}${dedup}`;
}

function sumCounts(runs: readonly ExecutedRun[]): DeliveryCounts {
  return runs.reduce<DeliveryCounts>((total, run) => {
    const c = run.check?.counts;
    if (!c) return total;
    return {
      attempted: total.attempted + c.attempted,
      acknowledged: total.acknowledged + c.acknowledged,
      lost: total.lost + c.lost,
      duplicated: total.duplicated + c.duplicated,
      unexpected: total.unexpected + c.unexpected,
      recovered: total.recovered + c.recovered,
      gaveUp: total.gaveUp + c.gaveUp,
    };
  }, NO_DELIVERIES);
}

/** What the report says beside the verdict: the harness failures, or what never happened and why. */
function notesOf(verdict: Verdict, outcome: ScenarioOutcome, explored: readonly ExecutedRun[]): string[] {
  if (verdict === 'infra-error')
    return explored.filter((run) => run.infraError !== undefined).map((run) => `run ${run.index}: ${run.infraError}`);
  if (verdict !== 'inconclusive') return [];
  if (outcome.details.interrupted)
    return [`the check was interrupted after ${explored.length} run(s): a run outlived every budget`];
  const spent = `the budget ran out after ${explored.length} run(s) in ${(explored.reduce((total, run) => total + run.durationMs, 0) / 1000).toFixed(0)} s`;
  return outcome.ledger.missing().map((missing) => `${missing} (${spent})`);
}

/** The figures of the runs that define the verdict: time per phase, deliveries, INSERTs and what their evidence shows. */
function figuresOf(
  defining: readonly ExecutedRun[],
  alternatesDedup: boolean,
): Pick<
  ScenarioResult,
  'phases' | 'counts' | 'inserts' | 'replays' | 'dedupHits' | 'refusals' | 'unknownOutcomes' | 'serverDedup' | 'faults'
> {
  const evidence = defining.reduce<Evidence>(
    (total, run) => (run.check ? addEvidence(total, run.check.evidence) : total),
    NO_EVIDENCE,
  );
  const sum = (pick: (run: ExecutedRun) => number) => defining.reduce((total, run) => total + pick(run), 0);
  return {
    phases: {
      clusterMs: 0,
      trafficMs: sum((run) => run.phases.trafficMs),
      healMs: sum((run) => run.phases.healMs),
      checkMs: sum((run) => run.phases.checkMs),
    },
    counts: sumCounts(defining),
    inserts: {
      ok: sum((run) => run.check?.inserts.ok ?? 0),
      failed: sum((run) => run.check?.inserts.failed ?? 0),
      unknown: sum((run) => run.check?.inserts.unknown ?? 0),
    },
    replays: evidence.replays,
    dedupHits: evidence.dedupHits,
    refusals: evidence.refusals,
    unknownOutcomes: {
      landed: evidence.unknownLanded,
      absent: evidence.unknownAbsent,
      unresolved: evidence.unknownOutcomes - evidence.unknownLanded - evidence.unknownAbsent,
    },
    serverDedup: alternatesDedup
      ? {
          offRuns: defining.filter((run) => run.serverDedupOff).length,
          onRuns: defining.filter((run) => !run.serverDedupOff).length,
          acceptedTwice: evidence.acceptedTwice,
        }
      : null,
    faults: faultCounts(evidence),
  };
}

/**
 * A scenario's result for one class, its verdict by the one rule (`judgeScenario`), with
 * notes naming what failed in the harness or what never happened. The figures come from the runs
 * that define the verdict: the reported counterexample, or every exploring run (never the shrink
 * steps).
 */
export function scenarioResult(
  scenario: ScenarioDefinition,
  sinkClass: SinkClassName,
  outcome: ScenarioOutcome,
  seed: number,
): ScenarioResult {
  const { runs, details } = outcome;
  const explored = runs.filter((run) => run.phase === 'explore');
  const counterexample = runs.filter((run) => run.check?.verdict === 'violation').at(-1);
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
  return {
    name: scenario.name,
    sinkClass,
    verdict,
    seed,
    path,
    replayCommand: replayCommand({ sinkClass, scenario: scenario.name, seed, path, serverDedupOff }),
    runs: explored.length,
    shrinkRuns: runs.length - explored.length,
    stopped: outcome.stopped === 'covered' ? 'covered' : 'budget-spent',
    durationMs: runs.reduce((total, run) => total + run.durationMs, 0),
    ...figuresOf(defining, alternatesDedup),
    anomalies: counterexample?.check?.results.flatMap((result) => result.anomalies) ?? [],
    giveUps: defining.flatMap((run) => run.check?.results.find((result) => result.checker === 'give-up')?.notes ?? []),
    notes: notesOf(verdict, outcome, explored),
    commands: (counterexample ?? explored.at(-1))?.input.schedule.map(describeStep) ?? [],
    configurations: configurations(explored, target, owed.guarantee),
  };
}

/** The checked exploring runs grouped by the configuration they wrote under, with the guarantee owed there. */
function configurations(
  runs: readonly ExecutedRun[],
  target: TargetTable,
  guarantee: DeliveryGuarantee,
): ConfigurationResult[] {
  const byConfiguration = new Map<string, ConfigurationResult>();
  for (const run of runs) {
    if (run.check === undefined) continue;
    const configuration = configurationOf(target, run.serverDedupOff, run.input.spec, run.profile);
    const onView = owedOnView(guarantee, target, run.serverDedupOff);
    const view = run.check.viewCounts;
    const viewViolated = run.check.results.some(
      (result) => result.checker === 'view' && result.verdict === 'violation',
    );
    const row: ConfigurationResult = {
      configuration,
      owed: owedGuarantee(guarantee, target, run.serverDedupOff),
      runs: 1,
      violations: run.check.verdict === 'violation' ? 1 : 0,
      lost: run.check.counts.lost,
      duplicated: run.check.counts.duplicated,
      dedupHits: run.check.evidence.dedupHits,
      ...(onView === undefined || view === undefined
        ? {}
        : {
            view: {
              owed: onView,
              violations: viewViolated ? 1 : 0,
              lost: view.lost,
              duplicated: view.duplicated,
            },
          }),
    };
    const seen = byConfiguration.get(configuration);
    byConfiguration.set(configuration, seen === undefined ? row : addConfigurations(seen, row));
  }
  return [...byConfiguration.values()];
}
