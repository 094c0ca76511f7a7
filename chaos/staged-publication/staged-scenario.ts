import type { StartedCluster } from '../../harness/cluster/index.ts';
import type { FaultType } from '../../harness/flow/history/index.ts';
import { STAGED_LOADER_CLASS } from '../../properties/base/index.ts';
import type { DeliveryCounts } from '../../properties/checkers/index.ts';
import {
  NO_TALLY,
  quantile,
  type ReadFigures,
  type ReadTimeline,
  type ScenarioReport,
  type Tally,
} from '../../reports/results/index.ts';
import { owedByOperation, PUBLISH_OPERATIONS } from '../../sinks/index.ts';
import { type PathScenarioOptions, pathRunViolated, runPathScenario } from '../executor/index.ts';
import type { UndoJournal } from '../nemeses/index.ts';
import { describeStagedFault } from './staged-faults.ts';
import { type StagedRun, writeStagedRun } from './staged-record.ts';
import { type LoaderClass, runStaged, type StagedRunInput, type StagedRunResult } from './staged-run.ts';
import { arbStagedRunInput, type StagedScenario } from './staged-scenarios.ts';
import { rowsPerTable } from './staged-source.ts';

export interface StagedScenarioOptions extends PathScenarioOptions {
  readonly cluster: StartedCluster;
  readonly journal: UndoJournal;
  readonly scenario: StagedScenario;
  /** The loader under test; by default the repository's (the self-test passes one from a mutated tree). */
  readonly loader?: LoaderClass | undefined;
}

const FAULT_TYPES: Readonly<Record<Exclude<StagedRunInput['fault']['kind'], 'refused-publication'>, FaultType>> = {
  'publish-cut': 'reset_peer',
  'stage-cut': 'reset_peer',
  'sibling-kill': 'replica_kill',
  'keeper-cut': 'keeper_link_cut',
  'keeper-leader-kill': 'keeper_kill',
  'sibling-keeperless-start': 'keeper_link_cut',
  'sibling-metadata-lost': 'replica_kill',
  'replica-joins': 'replica_join',
};

function runTally(run: StagedRun): Tally {
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
 * One staged scenario (`runPathScenario`): runs until the fault did what the scenario declares or
 * the budget is spent, a violation shrunk; every run stored as `run-<n>/staged-run.json`; the
 * report with what its readers saw, per operation.
 */
export async function runStagedScenario(options: StagedScenarioOptions): Promise<ScenarioReport> {
  const { cluster, journal, log, loader, signal } = options;
  const { report, explored } = await runPathScenario<StagedRunInput, StagedRunResult>(options, {
    sinkClass: STAGED_LOADER_CLASS,
    scenario: options.scenario.name,
    arbitrary: arbStagedRunInput(options.scenario),
    offFirst: options.scenario.dedupOffFirst,
    runName: 'staged publication run',
    notCovered: 'no fault did what its scenario declares within the budget',
    execute: (context, input) => runStaged({ cluster, journal, log, loader, signal, ...context }, input),
    store: writeStagedRun,
    runLine,
    runTally,
    configurationOf,
    owedOf: (run) => owedByOperation(run.input.operation),
  });
  return { ...report, reads: readFigures(explored) };
}
