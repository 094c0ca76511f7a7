import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { describeError, type Seed } from '../../harness/base/index.ts';
import type { StartedCluster } from '../../harness/cluster/index.ts';
import type { FaultType } from '../../harness/flow/history/index.ts';
import { type OwedGuarantee, STAGED_LOADER_CLASS } from '../../properties/base/index.ts';
import { type DeliveryCounts, mergeAnomalies } from '../../properties/checkers/index.ts';
import {
  addTally,
  NO_TALLY,
  quantile,
  type ReadFigures,
  type ReadTimeline,
  type ScenarioReport,
  type Tally,
} from '../../reports/results/index.ts';
import { owedByOperation, PUBLISH_OPERATIONS } from '../../sinks/index.ts';
import {
  explorePath,
  pathScenarioVerdict,
  type Profile,
  replayCommand,
  runDatabaseName,
  type ServerDedupMode,
} from '../executor/index.ts';
import type { UndoJournal } from '../nemeses/index.ts';
import { describeStagedFault } from './staged-faults.ts';
import { type StagedRun, violated, writeStagedRun } from './staged-record.ts';
import { type LoaderClass, runStaged, type StagedRunInput } from './staged-run.ts';
import { arbStagedRunInput, type StagedScenario } from './staged-scenarios.ts';
import { rowsPerTable } from './staged-source.ts';

export interface StagedScenarioOptions {
  readonly cluster: StartedCluster;
  readonly journal: UndoJournal;
  readonly scenario: StagedScenario;
  readonly profile: Profile;
  readonly seed: Seed;
  readonly path?: string | undefined;
  /** The scenario's directory in the report: each run stores its input and result under it. */
  readonly dir: string;
  readonly databasePrefix: string;
  readonly serverDedup: ServerDedupMode;
  readonly log: Logger;
  readonly signal?: AbortSignal | undefined;
  /** The loader under test; by default the repository's (the self-test passes one from a mutated tree). */
  readonly loader?: LoaderClass | undefined;
  /** False: a violation is reported as found, not shrunk (the self-test's time). */
  readonly shrink?: boolean;
}

const FAULT_TYPES: Readonly<Record<Exclude<StagedRunInput['fault']['kind'], 'refused-publication'>, FaultType>> = {
  'publish-cut': 'reset_peer',
  'stage-cut': 'reset_peer',
  'sibling-kill': 'replica_kill',
  'keeper-cut': 'keeper_link_cut',
  'keeper-leader-kill': 'keeper_kill',
  'sibling-keeperless-start': 'keeper_link_cut',
  'sibling-metadata-lost': 'replica_kill',
};

function runTally(run: StagedRun): Tally {
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
    faults:
      run.result?.fired === true && run.input.fault.kind !== 'refused-publication'
        ? { [FAULT_TYPES[run.input.fault.kind]]: 1 }
        : {},
  };
}

const configurationOf = (run: StagedRun): string =>
  `staged ${run.input.operation.toUpperCase()} into ${run.input.replicated ? 'ReplicatedMergeTree' : 'MergeTree'}, ${run.input.shape.tables} table(s), block dedup ${run.dedupOff ? 'off' : 'on'}`;

function runLine(run: StagedRun): string {
  const { input } = run;
  const what = `run ${run.index} (${run.phase}): ${describeStagedFault(input.fault)}; ${input.operation.toUpperCase()} into ${input.replicated ? 'ReplicatedMergeTree' : 'MergeTree'}, ${input.loads} loads x ${input.shape.tables} table(s) x ${rowsPerTable(input.shape)} rows in ${input.shape.batches} batches; block dedup ${run.dedupOff ? 'off' : 'on'}`;
  if (run.infraError !== undefined) return `${what} — infra-error: ${run.infraError}`;
  const result = run.result;
  if (result === undefined) return what;
  const gaveUp = result.outcomes.filter((outcome) => outcome.outcome === 'gave-up').length;
  const aimed = result.aimed;
  const cut =
    aimed === undefined
      ? ''
      : `; the ${aimed.step.kind} of load ${aimed.step.load} into ${aimed.step.table}: ${aimed.error ?? 'answered'}${aimed.committed === true ? ', and it had taken effect' : ''}`;
  return `${what} — faults ${result.faults.join(', ') || 'none'}${result.fired ? '' : ' (did not count)'}${cut}; ${gaveUp} load(s) given up; ${result.check.counts.duplicated} rows duplicated; ${result.check.reads} reads (${result.failedReads} failed)${result.notes.length > 0 ? `; ${result.notes.join('; ')}` : ''}`;
}

/** The readers' figures of the scenario's explored runs, per operation. */
function readFigures(runs: readonly StagedRun[]): ReadFigures[] {
  return PUBLISH_OPERATIONS.flatMap((operation) => {
    const results = runs.filter((run) => run.input.operation === operation).flatMap((run) => run.result ?? []);
    if (results.length === 0) return [];
    const windows = results.flatMap((result) => result.check.windows);
    const spansMs = windows.map((window) => window.spanMs).sort((a, b) => a - b);
    return [
      {
        operation: operation.toUpperCase(),
        reads: results.reduce((sum, result) => sum + result.check.reads, 0),
        failedReads: results.reduce((sum, result) => sum + result.failedReads, 0),
        fractured: results.reduce(
          (sum, result) =>
            sum + (result.check.anomalies.find((found) => found.category === 'fractured-read')?.count ?? 0),
          0,
        ),
        underRepair: results.reduce(
          (sum, result) => ({
            reads: sum.reads + result.check.underRepair.reads,
            fractured: sum.fractured + result.check.underRepair.fractured,
          }),
          { reads: 0, fractured: 0 },
        ),
        loads: windows.length,
        splitReads: windows.reduce((sum, window) => sum + window.splitReads, 0),
        windowMs:
          spansMs.length === 0
            ? null
            : { p50: quantile(spansMs, 0.5), p95: quantile(spansMs, 0.95), max: spansMs.at(-1) ?? 0 },
        shown: readTimeline(runs.filter((run) => run.input.operation === operation && run.result !== undefined)),
      },
    ];
  });
}

/** The run with the widest cross-table window (or the first), read by read, for the HTML chart. */
function readTimeline(runs: readonly StagedRun[]): ReadTimeline | undefined {
  const widest = (run: StagedRun) => Math.max(0, ...(run.result?.check.windows ?? []).map((window) => window.spanMs));
  const run = [...runs].sort((a, b) => widest(b) - widest(a))[0];
  const result = run?.result;
  if (run === undefined || result === undefined) return undefined;
  const { observation } = result;
  const owed = (table: string, load: number) => observation.loads.find((entry) => entry.load === load)?.rows[table];
  const reads = observation.reads.slice(0, MAX_CHARTED_READS).map((read) => {
    const whole = read.counts.filter((count) => {
      const rows = owed(count.table, count.load);
      return rows !== undefined && count.rows > 0 && count.rows % rows === 0 && count.distinct === rows;
    });
    const loads = new Set(read.counts.filter((count) => count.rows > 0).map((count) => count.load));
    return {
      atMs: read.startedAt,
      replica: read.replica,
      seen: whole.length,
      split:
        observation.tables.length > 1 &&
        [...loads].some((load) => whole.filter((count) => count.load === load).length < observation.tables.length),
      fractured: whole.length < read.counts.filter((count) => count.rows > 0).length,
    };
  });
  return {
    run: run.index,
    durationMs: Math.max(1, ...observation.reads.map((read) => read.endedAt)),
    parts: observation.loads.length * observation.tables.length,
    windows: result.check.windows
      .filter((window) => window.splitReads > 0)
      .map(({ load, fromMs, toMs }) => ({ load, fromMs, toMs })),
    reads,
  };
}

/** A chart of more reads than this shows the first ones (a run's reads are a few hundred to a few thousand). */
const MAX_CHARTED_READS = 3_000;

/**
 * One staged scenario: runs drawn by fast-check from the pair's seed until the fault did what the
 * scenario declares (its coverage) or the budget is spent; a violation is shrunk within the shrink
 * budget. Every run's input and result is stored as `run-<n>/staged-run.json`.
 */
export async function runStagedScenario(options: StagedScenarioOptions): Promise<ScenarioReport> {
  const started = Date.now();
  const { runs, stopped, counterexamplePath } = await explorePath<StagedRunInput, StagedRun>({
    seed: options.seed,
    seedKey: `${STAGED_LOADER_CLASS}/${options.scenario.name}`,
    profile: options.profile,
    path: options.path,
    arbitrary: arbStagedRunInput(options.scenario),
    serverDedup: options.serverDedup,
    offFirst: options.scenario.dedupOffFirst,
    signal: options.signal,
    shrink: options.shrink,
    violated,
    fired: (run) => run.result?.fired === true,
    run: async (base) => {
      const dir = join(options.dir, `run-${base.index}`);
      mkdirSync(dir, { recursive: true });
      const database = runDatabaseName(options.databasePrefix, STAGED_LOADER_CLASS, options.scenario.name, base.index);
      const runStarted = Date.now();
      let run: StagedRun;
      try {
        const { cluster, journal, log, loader, signal } = options;
        const context = { cluster, journal, database, dedupOff: base.dedupOff, dir, log, loader, signal };
        const result = await runStaged(context, base.input);
        run = { ...base, database, result, durationMs: Date.now() - runStarted };
      } catch (error) {
        run = { ...base, database, infraError: describeError(error), durationMs: Date.now() - runStarted };
      }
      writeStagedRun(dir, run);
      options.log.info({ scenario: options.scenario.name, run: runLine(run) }, 'staged publication run');
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
  const configurations = new Map<string, { owed: OwedGuarantee; tally: Tally }>();
  for (const run of explored.filter((entry) => entry.result !== undefined)) {
    const seen = configurations.get(configurationOf(run));
    configurations.set(configurationOf(run), {
      owed: owedByOperation(run.input.operation),
      tally: addTally(seen?.tally ?? NO_TALLY, runTally(run)),
    });
  }
  return {
    name: options.scenario.name,
    sinkClass: STAGED_LOADER_CLASS,
    verdict,
    seed: options.seed,
    ...(path === undefined ? {} : { path }),
    replayCommand: replayCommand({
      sinkClass: STAGED_LOADER_CLASS,
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
    // The sinks' give-up table judges a retry budget the loader does not have: its give-ups are in its run lines.
    giveUps: [],
    notes: [
      ...runs.map(runLine),
      ...(verdict === 'inconclusive' ? ['no fault did what its scenario declares within the budget'] : []),
    ],
    commands: defining.map(runLine),
    configurations: [...configurations.entries()].map(([configuration, { owed, tally }]) => ({
      configuration,
      owed,
      tally,
    })),
    reads: readFigures(explored),
  };
}
