import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import fc from 'fast-check';
import type { Logger } from 'pino';
import { harnessClient } from '../../harness/clickhouse/client.ts';
import { createDatabaseDdl, createTables, materializedViewDdl } from '../../harness/clickhouse/ddl.ts';
import type { SettingProfile } from '../../harness/cluster/config/setting-profiles.ts';
import { startedByHarness, type StartedCluster } from '../../harness/cluster/started-cluster.ts';
import { describeError, HarnessError } from '../../harness/errors.ts';
import { PROJECT_ROOT } from '../../harness/project-root.ts';
import type { MutantName } from '../mutants/catalogue.ts';
import { createMutatedTree } from '../mutants/mutated-tree.ts';
import { isSourceMutantName, SOURCE_MUTANTS } from '../mutants/source-mutants.ts';
import { FlowSupervisor } from '../../harness/flow/supervisor.ts';
import { columnsDdl, sourceConfig, type SourceConfig } from '../../harness/flow/source/source-config.ts';
import { collectGroundTruth } from '../../harness/oracle/ground-truth.ts';
import { dumpSystemTables } from '../../harness/oracle/system-dumps.ts';
import { arbSinkSpec, type RawSinkSpec } from '../../properties/arbitraries/arb-sink-spec.ts';
import { arbWorkload, type Workload } from '../../properties/arbitraries/arb-workload.ts';
import { chainTailFirst } from '../../properties/arbitraries/chain-tail-first.ts';
import { clusterEndpoints } from '../../properties/arbitraries/cluster-endpoints.ts';
import type { SinkClassName } from '../../sinks/domain/sink-class-name.ts';
import { SINK_CLASSES } from '../../sinks/sink-classes.ts';
import { runStep, type Schedule } from '../../properties/schedule/schedule-step.ts';
import { describedProxies, ensureProxiesClean } from '../nemeses/heal-proxies.ts';
import { RunUndo } from '../nemeses/run-undo.ts';
import type { UndoJournal } from '../nemeses/undo-journal.ts';
import type { ScenarioContext, ScenarioDefinition, TargetTable } from '../scenarios/scenario.ts';
import { CoverageLedger } from '../../properties/checkers/coverage-ledger.ts';
import { checkRun, declaredCoverage, unverified, type CheckInput, type RunCheck } from './check-run.ts';
import { writeCheckRecord } from './check-record.ts';
import { routingLayouts } from './expected-shard.ts';
import { abortable, withTimeout } from './background-write.ts';
import { PipelineSystem } from './pipeline-system.ts';
import { databaseTaken, runDatabaseName } from './run-database.ts';
import { RunInFlight } from './run-in-flight.ts';
import {
  exploreDecision,
  serverDedupOff,
  type ExploreDecision,
  type RunBudget,
  type ServerDedupMode,
} from './run-budget.ts';
import { onCluster, writeScheduleFile } from './schedule-file.ts';
import { settleCluster } from './settle-cluster.ts';
import { dedupMayBeOff, singleHosts, tableEngine, targetEndpoints, VIEW_TABLE } from './target-table.ts';

export interface ScenarioRunOptions {
  readonly cluster: StartedCluster;
  /** The cluster's undo journal: every run records there what it does to the cluster before doing it. */
  readonly journal: UndoJournal;
  /** Aborted by an interrupt: the run in flight stops, undoes what it did, and no other run starts. */
  readonly signal?: AbortSignal | undefined;
  readonly scenario: ScenarioDefinition;
  readonly sinkClass: SinkClassName;
  readonly budget: RunBudget;
  readonly seed: number;
  readonly path?: string | undefined;
  /** A stored run input to replay (`--schedule FILE`): one run of exactly it, nothing generated, nothing shrunk. */
  readonly schedule?: RunInput | undefined;
  readonly dir: string;
  readonly log: Logger;
  /** Hosts a deliberately broken sink instead of the real one (the checkers' self-test, `npm run mutants`). */
  readonly mutant?: MutantName;
  /**
   * For the classes that send no token: ClickHouse's own block dedup drops a replayed identical
   * block by content hash, which would hide a sink that re-inserts. `alternate` (the default)
   * turns it off (`replicated_deduplication_window = 0`) on every other run, first run included.
   */
  readonly serverDedup: ServerDedupMode;
  /**
   * Run databases are `<prefix>_<random>_<class>_<scenario>_<n>`: a chaos job's own tag (its run
   * id) and 48 random bits per run keep them apart from anything else on a cluster it did not start.
   */
  readonly databasePrefix?: string;
}

/** One generated run: the workload, the starting spec, the schedule, a seed for the sources. */
export interface RunInput {
  readonly workload: Workload;
  readonly spec: RawSinkSpec;
  readonly schedule: Schedule;
  readonly sourceSeed: number;
}

export interface ExecutedRun {
  readonly index: number;
  /** `explore`: a run of the budget; `shrink`: a step of shrinking a violation (counted apart). */
  readonly phase: 'explore' | 'shrink';
  readonly input: RunInput;
  /** The run's target had ClickHouse's block dedup off. */
  readonly serverDedupOff: boolean;
  /** The setting profile the sink's user carried, on a cluster of `replicas` replicas per shard. */
  readonly profile?: { readonly name: SettingProfile; readonly replicas: number };
  readonly check?: RunCheck;
  readonly infraError?: string;
  readonly durationMs: number;
  readonly phases: { readonly trafficMs: number; readonly healMs: number; readonly checkMs: number };
}

export interface ScenarioOutcome {
  readonly runs: readonly ExecutedRun[];
  /** Coverage over the exploring runs that were checked. */
  readonly ledger: CoverageLedger;
  /** Why exploring stopped: the declared coverage happened, or the budget ran out. */
  readonly stopped: ExploreDecision;
  /** The shrink budget ran out while fast-check still had smaller cases to try. */
  readonly shrinkTruncated: boolean;
  /** fast-check's verdict: the shrunk counterexample when a run violated the guarantee. */
  readonly details: fc.RunDetails<[RunInput]>;
}

const PLACEHOLDER_DATABASE = 'chaos';
const MUTANT_FACTORY = resolve(PROJECT_ROOT, 'chaos/mutants/mutant-sink-factory.ts');
const TABLE = 'events';

export function scenarioContext(options: Pick<ScenarioRunOptions, 'cluster'>, spec: RawSinkSpec): ScenarioContext {
  const description = options.cluster.description;
  return {
    description,
    keepers: description.keepers.map((keeper) => keeper.name),
    spec,
    // A started cluster allows every process action; an attached one lists what its owner allows.
    ownsCluster: startedByHarness(options.cluster),
  };
}

/**
 * A batching spec whose batches hold fewer rows than an epoch: every epoch is cut into several
 * batches, each under its own token (the batching classes' own mechanism, owed by coverage),
 * by construction rather than by the luck of two independent draws.
 */
function severalBatchesPerEpoch(spec: RawSinkSpec, workload: Workload): RawSinkSpec {
  const rows = spec.dynamic_parameters.max_rows_per_batch;
  if (typeof rows !== 'number' || rows < workload.messagesPerEpoch) return spec;
  return {
    ...spec,
    dynamic_parameters: { ...spec.dynamic_parameters, max_rows_per_batch: Math.max(1, workload.messagesPerEpoch - 1) },
  };
}

export function arbRunInput(
  options: Pick<ScenarioRunOptions, 'cluster' | 'scenario' | 'sinkClass'>,
): fc.Arbitrary<RunInput> {
  const endpoints = targetEndpoints(
    clusterEndpoints(options.cluster.description),
    options.scenario.target ?? 'replicated',
  );
  const target = {
    sinkClass: options.sinkClass,
    name: 'chaos_sink',
    database: PLACEHOLDER_DATABASE,
    table: `${TABLE}_rep`,
    endpoints,
    credentials: options.cluster.description.credentials,
  };
  const workload = (options.scenario.workload ?? arbWorkload()).map((w) =>
    options.scenario.partitions === undefined ? w : { ...w, partitions: options.scenario.partitions },
  );
  const specs =
    options.scenario.specs?.(target) ??
    arbSinkSpec(target, options.scenario.forms ? { forms: options.scenario.forms } : {});
  // Shrink order, each step a full real run: the schedule first, then the spec, then the
  // workload; the source seed only draws keys and payloads (another seed is not a smaller case)
  // and is never shrunk.
  return fc
    .record({
      sourceSeed: fc.noShrink(fc.integer({ min: 1, max: 2 ** 31 - 1 })),
      rest: chainTailFirst(workload, (w) =>
        chainTailFirst(
          specs.map((spec) => severalBatchesPerEpoch(spec, w)),
          (spec) =>
            options.scenario
              .commands(scenarioContext(options, spec))
              .map((schedule) => ({ workload: w, spec, schedule })),
        ),
      ),
    })
    .map(({ sourceSeed, rest }) => ({ sourceSeed, ...rest }));
}

/**
 * Runs a scenario for one class as a fast-check property over real runs, each with its own
 * database, state store and history. Runs are generated until the scenario's declared coverage
 * happened or the budget is spent (coverage is earned, not left to a fixed count); a violation
 * fails the property and is shrunk within the shrink budget, every shrink step under the same
 * server-dedup setting as the run that failed; a harness failure is recorded as infra-error and
 * does not shrink. An interrupt stops the run in flight (which undoes what it did) and skips the
 * rest; a run still going when fast-check's time backstop fired is stopped the same way before
 * this returns, and recorded as infra-error.
 */
export async function runScenario(options: ScenarioRunOptions): Promise<ScenarioOutcome> {
  const mutant = options.mutant;
  // A source mutant runs its workers from an edited copy of the tree, made once per scenario.
  const workerRoot =
    mutant !== undefined && isSourceMutantName(mutant)
      ? createMutatedTree(mutant, SOURCE_MUTANTS[mutant], options.dir)
      : undefined;
  const runs: ExecutedRun[] = [];
  const ledger = new CoverageLedger();
  const usesToken = SINK_CLASSES[options.sinkClass].usesDedupToken;
  const target = options.scenario.target ?? 'replicated';
  const started = Date.now();
  const inFlight = new RunInFlight(options.signal);
  let stopped: ExploreDecision = 'run';
  /** The server-dedup setting of the first violating run: every shrink step keeps it. */
  let failingDedupOff: boolean | undefined;
  let shrinkUntil = Number.POSITIVE_INFINITY;
  let replayHeld = false;
  let shrinkTruncated = false;
  const runOne = async (input: RunInput): Promise<boolean> => {
    // A replay (--path) is about one case: once it held, the cases fast-check would try after it are skipped.
    fc.pre(!replayHeld);
    // Interrupted: the check ends here (skipping every case left would take seconds of generation).
    if (inFlight.signal.aborted) throw new fc.PreconditionFailure(true);
    if (failingDedupOff === undefined) {
      stopped = exploreDecision(options.budget, {
        runs: ledger.runs,
        elapsedMs: Date.now() - started,
        covered: ledger.runs > 0 && ledger.complete,
      });
      fc.pre(stopped === 'run');
    } else if (Date.now() >= shrinkUntil) {
      shrinkTruncated = true;
      fc.pre(false);
    }
    const phase = failingDedupOff === undefined ? 'explore' : 'shrink';
    const ordinal = runs.filter((run) => run.phase === 'explore').length;
    const dedupOff = failingDedupOff ?? serverDedupOff(options.serverDedup, !dedupMayBeOff(target, usesToken), ordinal);
    const run = await executeRun(options, input, runs.length, phase, dedupOff, workerRoot, inFlight.signal);
    runs.push(run);
    if (phase === 'explore' && run.check !== undefined) ledger.add(run.check.coverage, run.check.evidence);
    const held = run.check?.verdict !== 'violation';
    if (options.path !== undefined && runs.length === 1 && held) replayHeld = true;
    if (!held && failingDedupOff === undefined) {
      failingDedupOff = dedupOff;
      shrinkUntil = Date.now() + options.budget.shrinkMs;
    }
    return held;
  };
  const inputs =
    options.schedule === undefined
      ? arbRunInput(options)
      : fc.constant(onCluster(options.schedule, options.cluster.description));
  const property = fc.asyncProperty(inputs, (input) => inFlight.track(runOne(input)));
  const backstopMs = options.budget.maxMs + options.budget.shrinkMs + 600_000;
  const details = await fc.check(property, {
    seed: options.seed,
    ...(options.path ? { path: options.path } : {}),
    numRuns: options.schedule === undefined ? options.budget.maxRuns : 1,
    endOnFailure: false,
    // A backstop beyond the budgets (each run bounds its own waits): an interrupted check never passes.
    interruptAfterTimeLimit: backstopMs,
    markInterruptAsFailure: true,
    // Exploring stops by skipping; at most every planned run is skipped once.
    maxSkipsPerRun: 1_000,
  });
  // fast-check abandons the predicate it interrupts; the run is stopped and undone here, before the next pair.
  await inFlight.stopAbandoned(
    new HarnessError(
      'CHAOS_RUN_OUTLIVED_BUDGET',
      `a run outlived every budget (the check's backstop fired after ${backstopMs / 1000} s): it was stopped and what it did was undone before anything else ran`,
    ),
  );
  if (stopped === 'run') stopped = ledger.runs > 0 && ledger.complete ? 'covered' : 'budget-spent';
  return { runs, ledger, stopped, shrinkTruncated, details };
}

/** How long closing a stopped run's workers may take (each is killed). */
const CLOSE_WORKERS_LIMIT_MS = 15_000;

async function executeRun(
  options: ScenarioRunOptions,
  input: RunInput,
  index: number,
  phase: ExecutedRun['phase'],
  dedupOff: boolean,
  workerRoot: string | undefined,
  signal: AbortSignal,
): Promise<ExecutedRun> {
  const started = Date.now();
  const target = options.scenario.target ?? 'replicated';
  const database = runDatabaseName(options.databasePrefix ?? 'chaos', options.sinkClass, options.scenario.name, index);
  const dir = join(options.dir, `run-${index}`);
  mkdirSync(dir, { recursive: true });
  writeScheduleFile(dir, input, dedupOff);
  const source: SourceConfig = sourceConfig({
    seed: input.sourceSeed,
    partitions: input.workload.partitions,
    messagesPerEpoch: input.workload.messagesPerEpoch,
    keySpace: input.workload.keySpace,
    payloadBytes: input.workload.payloadBytes,
  });
  const log = options.log.child({ run: index, database });
  const undo = new RunUndo(options.journal, dir);
  const phases = { trafficMs: 0, healMs: 0, checkMs: 0 };
  let supervisor: FlowSupervisor | undefined;
  let system: PipelineSystem | undefined;
  let finished = false;
  const profile = options.scenario.settingProfile?.(dedupOff);

  let checked: RunCheck | undefined;
  const body = async (): Promise<RunCheck> => {
    const user = profile === undefined ? undefined : options.cluster.description.setting_users?.[profile];
    if (profile !== undefined && user === undefined)
      throw new HarnessError(
        'CHAOS_NO_SETTING_USER',
        `the cluster names no user for the setting profile ${profile} (setting_users); the scenario cannot run on it`,
      );
    const revived = await settleCluster(options.cluster, options.journal, database);
    if (revived.length > 0) log.warn({ revived }, 'cluster members were dead at the start of a run and were restarted');
    // No run may meet a fault its history does not record: a proxy left faulted is healed, or the run does not start.
    const healed = await ensureProxiesClean(
      undo.deps.proxies,
      describedProxies(options.cluster.description),
      startedByHarness(options.cluster),
    );
    if (healed.length > 0) log.warn({ healed }, 'proxies were faulted before the run and were healed');
    await undo.during(() => createRunTables(options, undo, database, source, target, dedupOff));
    supervisor = new FlowSupervisor({
      dir,
      source,
      log,
      ...(options.mutant !== undefined && workerRoot === undefined
        ? { factoryModule: MUTANT_FACTORY, env: { CHAOS_MUTANT: options.mutant } }
        : {}),
      ...(workerRoot === undefined ? {} : { workerRoot }),
    });
    const running = new PipelineSystem(supervisor, options.cluster, undo, input.spec, { database, user }, log, signal);
    system = running;
    const trafficStart = Date.now();
    await running.start();
    for (const step of input.schedule) await runStep(running, step);
    phases.trafficMs = Date.now() - trafficStart;
    const healStart = Date.now();
    const history = await running.finish();
    finished = true;
    phases.healMs = Date.now() - healStart;
    const checkStart = Date.now();
    const truth = await collectGroundTruth(options.cluster.description, {
      database,
      table: TABLE,
      layouts: routingLayouts(running.specs),
      singleHosts: singleHosts(options.cluster.description, target),
      ...(target === 'replicated-with-view' ? { view: VIEW_TABLE } : {}),
    });
    const checkInput: CheckInput = {
      description: options.cluster.description,
      sinkClass: options.sinkClass,
      source,
      events: history.events,
      truth,
      coverage: declaredCoverage(options.scenario, options.sinkClass, input.schedule),
      specs: running.specs,
      expectations: running.expectations,
      serverDedupOff: dedupOff,
      target,
    };
    // Kept as soon as it exists: a stop during the dumps below must not lose a check already on file.
    const check = (checked = checkRun(checkInput));
    // Everything the check read stays with the run: `npm run check` judges it again from files.
    writeCheckRecord(dir, {
      scenario: options.scenario.name,
      phase,
      input: checkInput,
      verdict: check.verdict,
      anomalies: check.results.flatMap((result) => result.anomalies),
    });
    if (check.verdict !== 'pass')
      await dumpSystemTables(options.cluster.description, database, join(dir, 'system-tables'));
    phases.checkMs = Date.now() - checkStart;
    return check;
  };

  let infraError: string | undefined;
  try {
    // A check that could not verify the run (its query_log incomplete) is a harness failure, never a verdict.
    infraError = unverified(await abortable(body(), signal));
  } catch (error) {
    infraError = describeError(signal.aborted ? signal.reason : error);
    log.error({ err: infraError }, signal.aborted ? 'run stopped' : 'run failed in the harness');
  } finally {
    // Every path ends here: workers stopped, then everything the run did undone, its database last.
    system?.closeHistory();
    if (!finished && supervisor !== undefined)
      await withTimeout(supervisor.close(), CLOSE_WORKERS_LIMIT_MS, 'closing the run’s sink workers').catch(
        (error: unknown) => log.warn({ err: describeError(error) }, 'closing the sink workers failed'),
      );
    try {
      await undo.stop(infraError ?? 'the run ended');
    } catch (error) {
      // What stays in force is named, and the run is an infrastructure error: a pass earned beside a
      // fault that outlived its run proves nothing (a violation it found still stands).
      infraError = [infraError, describeError(error)].filter((text) => text !== undefined).join('; ');
      log.error({ err: describeError(error) }, 'undoing what the run did failed');
    }
  }
  const replicas = Math.min(...options.cluster.description.shards.map((shard) => shard.replicas.length));
  return {
    index,
    phase,
    input,
    serverDedupOff: dedupOff,
    ...(profile === undefined ? {} : { profile: { name: profile, replicas } }),
    ...(checked === undefined ? {} : { check: checked }),
    ...(infraError === undefined ? {} : { infraError }),
    durationMs: Date.now() - started,
    phases,
  };
}

/**
 * The run's database (plain CREATE, recorded per replica before it is made, so the run drops only
 * what it created: a name already taken fails the run and is left alone), its tables and, for a
 * view scenario, the view and its target.
 */
async function createRunTables(
  options: ScenarioRunOptions,
  undo: RunUndo,
  database: string,
  source: SourceConfig,
  target: TargetTable,
  dedupOff: boolean,
): Promise<void> {
  const description = options.cluster.description;
  const replicas = description.shards.flatMap((shard) => shard.replicas);
  const clients: ClickHouseClient[] = replicas.map((replica) =>
    harnessClient(replica.direct_http, { credentials: description.credentials }),
  );
  try {
    await Promise.all(
      replicas.map((replica, i) =>
        undo.do(
          { kind: 'database', replica: replica.name, database },
          () => clients[i]!.command({ query: createDatabaseDdl(database) }),
          databaseTaken,
        ),
      ),
    );
    const { engine, settings } = tableEngine(target, dedupOff);
    const table = {
      database,
      name: TABLE,
      columns: columnsDdl(source),
      orderBy: 'id',
      ...(engine === undefined ? {} : { engine }),
      settings: settings.join(', '),
      cluster: description.cluster,
    };
    await createTables(clients, table);
    if (target === 'replicated-with-view') {
      await createTables(clients, { ...table, name: VIEW_TABLE });
      const view = materializedViewDdl(database, TABLE, VIEW_TABLE);
      await Promise.all(clients.map((client) => client.command({ query: view })));
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}
