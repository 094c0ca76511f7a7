import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { describeError, type Seed } from '../../harness/base/index.ts';
import type { StartedCluster } from '../../harness/cluster/index.ts';
import type { FaultType } from '../../harness/flow/history/index.ts';
import { KAFKA_ENGINE_CLASS, type OwedGuarantee } from '../../properties/base/index.ts';
import { type DeliveryCounts, mergeAnomalies } from '../../properties/checkers/index.ts';
import { addTally, NO_TALLY, type ScenarioReport, type Tally } from '../../reports/results/index.ts';
import {
  explorePath,
  pathScenarioVerdict,
  type Profile,
  replayCommand,
  runDatabaseName,
  type ServerDedupMode,
} from '../executor/index.ts';
import type { UndoJournal } from '../nemeses/index.ts';
import { describeEngineFault } from './engine-faults.ts';
import { type EngineRun, violated, writeEngineRun } from './engine-record.ts';
import { type EngineRunInput, runEngine, type SetupMistake } from './engine-run.ts';
import { arbEngineRunInput, ENGINE_SCENARIOS, type EngineScenario } from './engine-scenarios.ts';
import { describeSettings, owedBy } from './engine-settings.ts';

export interface EngineScenarioOptions {
  readonly cluster: StartedCluster;
  readonly journal: UndoJournal;
  readonly scenario: EngineScenario;
  readonly profile: Profile;
  readonly seed: Seed;
  readonly path?: string | undefined;
  /** The scenario's directory in the report: each run stores its input and result under it. */
  readonly dir: string;
  readonly databasePrefix: string;
  readonly serverDedup: ServerDedupMode;
  readonly log: Logger;
  readonly signal?: AbortSignal | undefined;
  /** A deliberately misconfigured setup (the checkers' self-test, `engine-setup.mutants.test.ts`). */
  readonly setup?: SetupMistake | undefined;
  /** False: a violation is reported as found, not shrunk (the self-test's time). */
  readonly shrink?: boolean;
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
    violations: violated(run) ? 1 : 0,
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
  const started = Date.now();
  const { runs, stopped, counterexamplePath } = await explorePath<EngineRunInput, EngineRun>({
    seed: options.seed,
    seedKey: `${KAFKA_ENGINE_CLASS}/${options.scenario.name}`,
    profile: options.profile,
    path: options.path,
    arbitrary: arbEngineRunInput(options.scenario),
    serverDedup: options.serverDedup,
    offFirst: ENGINE_SCENARIOS.indexOf(options.scenario) % 2 === 0,
    signal: options.signal,
    shrink: options.shrink,
    violated,
    fired: (run) => run.result?.fired === true,
    run: async (base) => {
      const dir = join(options.dir, `run-${base.index}`);
      mkdirSync(dir, { recursive: true });
      const database = runDatabaseName(options.databasePrefix, KAFKA_ENGINE_CLASS, options.scenario.name, base.index);
      const runStarted = Date.now();
      let run: EngineRun;
      try {
        const { cluster, journal, log, setup, signal } = options;
        const context = { cluster, journal, database, dedupOff: base.dedupOff, dir, log, setup, signal };
        const result = await runEngine(context, base.input);
        run = { ...base, database, result, durationMs: Date.now() - runStarted };
      } catch (error) {
        run = { ...base, database, infraError: describeError(error), durationMs: Date.now() - runStarted };
      }
      writeEngineRun(dir, run);
      options.log.info({ scenario: options.scenario.name, run: runLine(run) }, 'Kafka engine run');
      return run;
    },
  });
  const explored = runs.filter((run) => run.phase === 'explore');
  const counterexample = [...runs].reverse().find(violated);
  const defining = counterexample === undefined ? explored : [counterexample];
  const verdict = pathScenarioVerdict(
    runs.map((run) => ({
      phase: run.phase,
      violated: violated(run),
      fired: run.result?.fired === true,
      infraError: run.infraError !== undefined,
    })),
    options.signal?.aborted === true,
  );
  const path = counterexample === undefined ? undefined : counterexamplePath;
  const notes = [
    ...runs.map(runLine),
    ...(verdict === 'inconclusive' ? ['no fault fired on a consumer with work within the budget'] : []),
  ];
  const configurations = new Map<string, { owed: OwedGuarantee; tally: Tally }>();
  for (const run of explored.filter((entry) => entry.result !== undefined)) {
    const seen = configurations.get(configurationOf(run));
    configurations.set(configurationOf(run), {
      owed: owedBy(run.input.settings),
      tally: addTally(seen?.tally ?? NO_TALLY, runTally(run)),
    });
  }
  return {
    name: options.scenario.name,
    sinkClass: KAFKA_ENGINE_CLASS,
    verdict,
    seed: options.seed,
    ...(path === undefined ? {} : { path }),
    replayCommand: replayCommand({
      sinkClass: KAFKA_ENGINE_CLASS,
      scenario: options.scenario.name,
      seed: options.seed,
      path,
      serverDedupOff: counterexample?.dedupOff,
    }),
    runs: explored.length,
    shrinkRuns: runs.length - explored.length,
    stopped,
    durationMs: Date.now() - started,
    phases: defining.reduce(
      (sum, run) => ({
        trafficMs: sum.trafficMs + (run.result?.timings.trafficMs ?? 0),
        healMs: sum.healMs + (run.result?.timings.healMs ?? 0),
        checkMs: sum.checkMs + (run.result?.timings.checkMs ?? 0),
      }),
      { trafficMs: 0, healMs: 0, checkMs: 0 },
    ),
    tally: defining.reduce((sum, run) => addTally(sum, runTally(run)), NO_TALLY),
    anomalies: mergeAnomalies(defining.flatMap((run) => run.result?.check.anomalies ?? [])),
    giveUps: [],
    notes,
    commands: (counterexample === undefined ? explored : [counterexample]).map(runLine),
    configurations: [...configurations.entries()].map(([configuration, { owed, tally }]) => ({
      configuration,
      owed,
      tally,
    })),
  };
}
