import type { StartedCluster } from '../../harness/cluster/index.ts';
import type { FaultType } from '../../harness/flow/history/index.ts';
import { KAFKA_ENGINE_CLASS } from '../../properties/base/index.ts';
import type { DeliveryCounts } from '../../properties/checkers/index.ts';
import { NO_TALLY, type ScenarioReport, type Tally } from '../../reports/results/index.ts';
import { type PathScenarioOptions, pathRunViolated, runPathScenario } from '../executor/index.ts';
import type { UndoJournal } from '../nemeses/index.ts';
import { describeEngineFault } from './engine-faults.ts';
import { type EngineRun, writeEngineRun } from './engine-record.ts';
import { type EngineRunInput, type EngineRunResult, runEngine, type SetupMistake } from './engine-run.ts';
import { arbEngineRunInput, ENGINE_SCENARIOS, type EngineScenario } from './engine-scenarios.ts';
import { describeSettings, owedBy } from './engine-settings.ts';

export interface EngineScenarioOptions extends PathScenarioOptions {
  readonly cluster: StartedCluster;
  readonly journal: UndoJournal;
  readonly scenario: EngineScenario;
  /** A deliberately misconfigured setup (the checkers' self-test, `engine-setup.mutants.test.ts`). */
  readonly setup?: SetupMistake | undefined;
}

/** The fault types a run's faults were, counted once each when the run's fault fired. */
function faultTypes(run: EngineRun): Partial<Record<FaultType, number>> {
  if (run.result?.fired !== true) return {};
  const type: FaultType = (() => {
    const fault = run.input.fault;
    switch (fault.kind) {
      case 'broker-link':
        return fault.how;
      case 'broker-process':
        return fault.how === 'kill' ? 'broker_kill' : 'broker_pause';
      case 'replica-kill':
        return 'replica_kill';
      case 'keeper-link':
        return 'keeper_link_cut';
      case 'rebalance':
        return 'table_detached';
    }
  })();
  return { [type]: 1 };
}

function runTally(run: EngineRun): Tally {
  const counts: DeliveryCounts = run.result?.check.counts ?? NO_TALLY.counts;
  return {
    ...NO_TALLY,
    runs: 1,
    violations: pathRunViolated(run) ? 1 : 0,
    counts,
    serverDedup: {
      offRuns: run.dedupOff ? 1 : 0,
      onRuns: run.dedupOff ? 0 : 1,
      acceptedTwice: run.dedupOff ? counts.duplicated : 0,
    },
    faults: faultTypes(run),
  };
}

const configurationOf = (run: EngineRun): string =>
  `Kafka engine (offsets in ${run.input.settings.offsets}, ${run.input.settings.handleErrorMode} errors${run.input.settings.commitEveryBatch ? ', commit every batch' : ''}) → ReplicatedMergeTree, block dedup ${run.dedupOff ? 'off' : 'on'}`;

function runLine(run: EngineRun): string {
  const what = `run ${run.index} (${run.phase}): ${describeEngineFault(run.input.fault)}, ${run.input.messages} messages over ${run.input.partitions} partitions, ${run.input.broken.length} broken; ${describeSettings(run.input.settings)}; block dedup ${run.dedupOff ? 'off' : 'on'}`;
  if (run.infraError !== undefined) return `${what} — infra-error: ${run.infraError}`;
  const result = run.result;
  if (result === undefined) return what;
  const counts = result.check.counts;
  return `${what} — faults ${result.faults.join(', ') || 'none'}${result.fired ? '' : ' (did not count)'}; ${result.check.stored} stored, ${counts.duplicated} duplicated, ${result.check.brokenDropped} broken dropped${result.notes.length > 0 ? `; ${result.notes.join('; ')}` : ''}`;
}

/**
 * One Kafka engine scenario: runs drawn by fast-check from the pair's seed until a fault fired
 * on a consumer with work (its coverage) or the profile's budget is spent; a violation is shrunk
 * within the shrink budget, and the last violating input is the counterexample (its path in the
 * replay line). Every run's input and result is stored as `run-<n>/engine-run.json`.
 */
export async function runEngineScenario(options: EngineScenarioOptions): Promise<ScenarioReport> {
  const { cluster, journal, log, setup, signal } = options;
  const requireCommitWindow = options.scenario.commitWindowIn?.includes(options.profile) === true;
  const { report } = await runPathScenario<EngineRunInput, EngineRunResult>(options, {
    sinkClass: KAFKA_ENGINE_CLASS,
    scenario: options.scenario.name,
    arbitrary: arbEngineRunInput(options.scenario, options.profile),
    // From the scenario's place in the catalogue: a `ci` job (one run each) meets the target with dedup both off and on.
    offFirst: ENGINE_SCENARIOS.indexOf(options.scenario) % 2 === 0,
    runName: 'Kafka engine run',
    notCovered: requireCommitWindow
      ? "no kill landed between a block's write and its commit within the budget"
      : 'no fault fired on a consumer with work within the budget',
    execute: (context, input) =>
      runEngine({ cluster, journal, log, setup, signal, requireCommitWindow, ...context }, input),
    store: writeEngineRun,
    runLine,
    runTally,
    configurationOf,
    owedOf: (run) => owedBy(run.input.settings),
  });
  return report;
}
