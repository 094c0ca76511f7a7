import type { Arbitrary } from 'fast-check';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { describeError, HarnessError, type Seed } from '../../harness/base/index.ts';
import type { StartedCluster } from '../../harness/cluster/index.ts';
import type { JudgedClassName, OwedGuarantee } from '../../properties/base/index.ts';
import { type Anomaly, mergeAnomalies } from '../../properties/checkers/index.ts';
import { addTally, NO_TALLY, type ScenarioReport, type Tally } from '../../reports/results/index.ts';
import type { UndoJournal } from '../nemeses/index.ts';
import { explorePath, type PathRun, pathScenarioVerdict } from './path-loop.ts';
import type { Profile, ServerDedupMode } from './run-budget.ts';
import { runDatabaseName } from './run-database.ts';
import { replayCommand } from './scenario-report.ts';

/** How a path's run is bound to the cluster: its database and directory, and ClickHouse's block dedup on its target. */
export interface PathRunContext {
  readonly cluster: StartedCluster;
  readonly journal: UndoJournal;
  readonly database: string;
  /** ClickHouse's block dedup off on the run's target: a write repeated cannot hide. */
  readonly dedupOff: boolean;
  readonly dir: string;
  readonly log: Logger;
  /** Aborted by an interrupt: the run stops where it is, and its end undoes what it did. */
  readonly signal?: AbortSignal | undefined;
}

/** What every path's run result carries: its check, whether its fault counted, where its time went. */
export interface PathRunResult {
  readonly check: { readonly anomalies: readonly Anomaly[] };
  readonly fired: boolean;
  readonly timings: { readonly trafficMs: number; readonly healMs: number; readonly checkMs: number };
}

/** One run of a path as its scenario keeps it: its input, and its result or why the harness could not finish it. */
export interface RecordedPathRun<Input, Result extends PathRunResult> extends PathRun<Input> {
  readonly database: string;
  readonly result?: Result | undefined;
  readonly durationMs: number;
}

export const pathRunViolated = (run: { readonly result?: PathRunResult | undefined }): boolean =>
  (run.result?.check.anomalies.length ?? 0) > 0;

/** The common options of a path's scenario (what the chaos job gives every pair). */
export interface PathScenarioOptions {
  readonly profile: Profile;
  readonly seed: Seed;
  readonly path?: string | undefined;
  /** The scenario's directory in the report: each run stores its input and result under it. */
  readonly dir: string;
  readonly databasePrefix: string;
  readonly serverDedup: ServerDedupMode;
  readonly log: Logger;
  readonly signal?: AbortSignal | undefined;
  /** False: a violation is reported as found, not shrunk (a self-test's time). */
  readonly shrink?: boolean | undefined;
}

/** What a path tells the driver: how one run goes, is stored, reads and counts. */
export interface PathScenarioSpec<Input, Result extends PathRunResult> {
  readonly sinkClass: JudgedClassName;
  readonly scenario: string;
  readonly arbitrary: Arbitrary<Input>;
  readonly offFirst: boolean;
  /** What the log calls a run (`Kafka engine run`). */
  readonly runName: string;
  /** The note of a scenario whose fault never counted. */
  readonly notCovered: string;
  readonly execute: (context: { database: string; dedupOff: boolean; dir: string }, input: Input) => Promise<Result>;
  readonly store: (dir: string, run: RecordedPathRun<Input, Result>) => void;
  readonly runLine: (run: RecordedPathRun<Input, Result>) => string;
  readonly runTally: (run: RecordedPathRun<Input, Result>) => Tally;
  readonly configurationOf: (run: RecordedPathRun<Input, Result>) => string;
  readonly owedOf: (run: RecordedPathRun<Input, Result>) => OwedGuarantee;
}

/**
 * One scenario of a path outside the sinks (the Kafka engine, the staged loader): runs drawn by
 * fast-check from the pair's seed (`explorePath`), each in a database and directory of its own and
 * stored there, an error of the harness recorded as the run's infra-error; then the scenario's
 * report by the paths' one verdict rule. Returns the report and the exploring runs (a path adds
 * figures of its own from them).
 */
export async function runPathScenario<Input, Result extends PathRunResult>(
  options: PathScenarioOptions,
  spec: PathScenarioSpec<Input, Result>,
): Promise<{ readonly report: ScenarioReport; readonly explored: readonly RecordedPathRun<Input, Result>[] }> {
  type Run = RecordedPathRun<Input, Result>;
  const started = Date.now();
  const { runs, stopped, counterexamplePath } = await explorePath<Input, Run>({
    seed: options.seed,
    seedKey: `${spec.sinkClass}/${spec.scenario}`,
    profile: options.profile,
    path: options.path,
    arbitrary: spec.arbitrary,
    serverDedup: options.serverDedup,
    offFirst: spec.offFirst,
    signal: options.signal,
    shrink: options.shrink,
    violated: pathRunViolated,
    fired: (run) => run.result?.fired === true,
    run: async (base) => {
      const dir = join(options.dir, `run-${base.index}`);
      mkdirSync(dir, { recursive: true });
      const database = runDatabaseName(options.databasePrefix, spec.sinkClass, spec.scenario, base.index);
      const runStarted = Date.now();
      let run: Run;
      try {
        const result = await spec.execute({ database, dedupOff: base.dedupOff, dir }, base.input);
        run = { ...base, database, result, durationMs: Date.now() - runStarted };
      } catch (error) {
        run = { ...base, database, infraError: describeError(error), durationMs: Date.now() - runStarted };
      }
      spec.store(dir, run);
      options.log.info({ scenario: spec.scenario, run: spec.runLine(run) }, spec.runName);
      return run;
    },
  });
  const explored = runs.filter((run) => run.phase === 'explore');
  const counterexample = [...runs].reverse().find(pathRunViolated);
  const defining = counterexample === undefined ? explored : [counterexample];
  const verdict = pathScenarioVerdict(
    runs.map((run) => ({
      phase: run.phase,
      violated: pathRunViolated(run),
      fired: run.result?.fired === true,
      infraError: run.infraError !== undefined,
    })),
    options.signal?.aborted === true,
  );
  const path = counterexample === undefined ? undefined : counterexamplePath;
  const configurations = new Map<string, { owed: OwedGuarantee; tally: Tally }>();
  for (const run of explored.filter((entry) => entry.result !== undefined)) {
    const seen = configurations.get(spec.configurationOf(run));
    configurations.set(spec.configurationOf(run), {
      owed: spec.owedOf(run),
      tally: addTally(seen?.tally ?? NO_TALLY, spec.runTally(run)),
    });
  }
  const report: ScenarioReport = {
    name: spec.scenario,
    sinkClass: spec.sinkClass,
    verdict,
    seed: options.seed,
    ...(path === undefined ? {} : { path }),
    replayCommand: replayCommand({
      sinkClass: spec.sinkClass,
      scenario: spec.scenario,
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
    tally: defining.reduce((sum, run) => addTally(sum, spec.runTally(run)), NO_TALLY),
    anomalies: mergeAnomalies(defining.flatMap((run) => run.result?.check.anomalies ?? [])),
    // The sinks' give-up table judges a retry budget these paths do not have; what they give up is in their run lines.
    giveUps: [],
    notes: [...runs.map(spec.runLine), ...(verdict === 'inconclusive' ? [spec.notCovered] : [])],
    commands: defining.map(spec.runLine),
    configurations: [...configurations.entries()].map(([configuration, { owed, tally }]) => ({
      configuration,
      owed,
      tally,
    })),
  };
  return { report, explored };
}

/** A path's stored run (`what` names it in the refusal), refused when it cannot be read or is of another version. */
export function readStoredPathRun<T extends { readonly version: number }>(
  file: string,
  version: number,
  what: string,
): T {
  let stored: T;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (error) {
    throw new HarnessError('STORED_FILE_INVALID', `${file} cannot be read as ${what}: ${String(error)}`);
  }
  if (stored.version !== version)
    throw new HarnessError(
      'STORED_FILE_VERSION',
      `${file} is version ${String(stored.version)}, this harness reads ${version}`,
    );
  return stored;
}
