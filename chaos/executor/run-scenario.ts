import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import type { Logger } from 'pino';
import type { Toxiproxy } from 'toxiproxy-node-client';
import { harnessClient } from '../../harness/clickhouse/client.ts';
import { createShardedTable, materializedViewDdl } from '../../harness/clickhouse/ddl.ts';
import type { SettingProfile } from '../../harness/cluster/config/setting-profiles.ts';
import type { StartedCluster } from '../../harness/cluster/started-cluster.ts';
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
import type { ChaosCommand } from '../../properties/schedule/commands.ts';
import { describedProxies, healProxies } from '../nemeses/heal-proxies.ts';
import type { ScenarioContext, ScenarioDefinition } from '../scenarios/scenario.ts';
import { CoverageLedger } from '../../properties/checkers/coverage-ledger.ts';
import { checkRun, declaredCoverage, unverified, type CheckInput, type RunCheck } from './check-run.ts';
import { writeCheckRecord } from './check-record.ts';
import { routingLayouts } from './expected-shard.ts';
import { PipelineSystem } from './pipeline-system.ts';
import {
  exploreDecision,
  serverDedupOff,
  type ExploreDecision,
  type RunBudget,
  type ServerDedupMode,
} from './run-budget.ts';
import { settleCluster } from './settle-cluster.ts';
import { dedupMayBeOff, singleHosts, tableEngine, targetEndpoints, VIEW_TABLE } from './target-table.ts';

export interface ScenarioRunOptions {
  readonly cluster: StartedCluster;
  readonly toxiproxy: Toxiproxy;
  readonly scenario: ScenarioDefinition;
  readonly sinkClass: SinkClassName;
  readonly budget: RunBudget;
  readonly seed: number;
  readonly path?: string | undefined;
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
  /** Run databases are `<prefix>_<class>_<scenario>_<n>`: a chaos job's own tag keeps them apart from anything else on a cluster it did not start (default: a random tag per call). */
  readonly databasePrefix?: string;
}

/** One generated run: the workload, the starting spec, the schedule, a seed for the sources. */
export interface RunInput {
  readonly workload: Workload;
  readonly spec: RawSinkSpec;
  readonly commands: readonly ChaosCommand[];
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
    ownsCluster: options.cluster.processActions === undefined,
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
              .map((commands) => ({ workload: w, spec, commands })),
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
 * does not shrink.
 */
export async function runScenario(given: ScenarioRunOptions): Promise<ScenarioOutcome> {
  // Database names unique on the cluster: the oracle reads the servers' query_log by database name,
  // and the log outlives a dropped database, so a name used twice would show one run the other's INSERTs.
  const options = { ...given, databasePrefix: given.databasePrefix ?? `chaos_${randomBytes(4).toString('hex')}` };
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
  let stopped: ExploreDecision = 'run';
  /** The server-dedup setting of the first violating run: every shrink step keeps it. */
  let failingDedupOff: boolean | undefined;
  let shrinkUntil = Number.POSITIVE_INFINITY;
  let replayHeld = false;
  let shrinkTruncated = false;
  const property = fc.asyncProperty(arbRunInput(options), async (input) => {
    // A replay (--path) is about one case: once it held, the cases fast-check would try after it are skipped.
    fc.pre(!replayHeld);
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
    const run = await executeRun(options, input, runs.length, phase, dedupOff, workerRoot);
    runs.push(run);
    if (phase === 'explore' && run.check !== undefined) ledger.add(run.check.coverage, run.check.evidence);
    const held = run.check?.verdict !== 'violation';
    if (options.path !== undefined && runs.length === 1 && held) replayHeld = true;
    if (!held && failingDedupOff === undefined) {
      failingDedupOff = dedupOff;
      shrinkUntil = Date.now() + options.budget.shrinkMs;
    }
    return held;
  });
  const details = await fc.check(property, {
    seed: options.seed,
    ...(options.path ? { path: options.path } : {}),
    numRuns: options.budget.maxRuns,
    endOnFailure: false,
    // A backstop beyond the budgets (each run bounds its own waits): an interrupted check never passes.
    interruptAfterTimeLimit: options.budget.maxMs + options.budget.shrinkMs + 600_000,
    markInterruptAsFailure: true,
    // Exploring stops by skipping; at most every planned run is skipped once.
    maxSkipsPerRun: 1_000,
  });
  if (stopped === 'run') stopped = ledger.runs > 0 && ledger.complete ? 'covered' : 'budget-spent';
  return { runs, ledger, stopped, shrinkTruncated, details };
}

async function executeRun(
  options: ScenarioRunOptions,
  input: RunInput,
  index: number,
  phase: ExecutedRun['phase'],
  dedupOff: boolean,
  workerRoot: string | undefined,
): Promise<ExecutedRun> {
  const started = Date.now();
  const target = options.scenario.target ?? 'replicated';
  const database = `${options.databasePrefix ?? 'chaos'}_${options.sinkClass.toLowerCase()}_${options.scenario.name.replace(/-/g, '_')}_${index}`;
  const dir = join(options.dir, `run-${index}`);
  mkdirSync(dir, { recursive: true });
  const source: SourceConfig = sourceConfig({
    seed: input.sourceSeed,
    partitions: input.workload.partitions,
    messagesPerEpoch: input.workload.messagesPerEpoch,
    keySpace: input.workload.keySpace,
    payloadBytes: input.workload.payloadBytes,
  });
  const log = options.log.child({ run: index, database });
  let trafficMs = 0;
  let healMs = 0;
  try {
    const profile = options.scenario.settingProfile?.(dedupOff);
    const user = profile === undefined ? undefined : options.cluster.description.setting_users?.[profile];
    if (profile !== undefined && user === undefined)
      throw new HarnessError(
        'CHAOS_NO_SETTING_USER',
        `the cluster names no user for the setting profile ${profile} (setting_users); the scenario cannot run on it`,
      );
    const revived = await settleCluster(options.cluster, database);
    if (revived.length > 0) log.warn({ revived }, 'cluster members were dead at the start of a run and were restarted');
    const clients = options.cluster.description.shards.flatMap((shard) =>
      shard.replicas.map((replica) =>
        harnessClient(replica.direct_http, { credentials: options.cluster.description.credentials }),
      ),
    );
    try {
      const { engine, settings } = tableEngine(target, dedupOff);
      const table = {
        database,
        name: TABLE,
        columns: columnsDdl(source),
        orderBy: 'id',
        ...(engine === undefined ? {} : { engine }),
        settings: settings.join(', '),
      };
      await createShardedTable(clients, table);
      if (target === 'replicated-with-view') {
        await createShardedTable(clients, { ...table, name: VIEW_TABLE });
        const view = materializedViewDdl(database, TABLE, VIEW_TABLE);
        await Promise.all(clients.map((client) => client.command({ query: view })));
      }
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
    const supervisor = new FlowSupervisor({
      dir,
      source,
      log,
      ...(options.mutant !== undefined && workerRoot === undefined
        ? { factoryModule: MUTANT_FACTORY, env: { CHAOS_MUTANT: options.mutant } }
        : {}),
      ...(workerRoot === undefined ? {} : { workerRoot }),
    });
    const system = new PipelineSystem(
      supervisor,
      options.cluster,
      options.toxiproxy,
      input.spec,
      { database, user },
      log,
    );
    const trafficStart = Date.now();
    let history;
    try {
      await system.start();
      for (const command of input.commands) await command.run(system);
      trafficMs = Date.now() - trafficStart;
      const healStart = Date.now();
      history = await system.finish();
      healMs = Date.now() - healStart;
    } catch (error) {
      // Leave nothing behind for the next run: workers killed, every proxy healed, the cluster settled.
      system.closeHistory();
      await supervisor.close().catch(() => undefined);
      await healProxies(
        options.cluster.description.toxiproxy ?? '',
        describedProxies(options.cluster.description),
      ).catch(() => undefined);
      await settleCluster(options.cluster, database).catch(() => undefined);
      throw error;
    }
    const checkStart = Date.now();
    const truth = await collectGroundTruth(options.cluster.description, {
      database,
      table: TABLE,
      layouts: routingLayouts(system.specs),
      singleHosts: singleHosts(options.cluster.description, target),
      ...(target === 'replicated-with-view' ? { view: VIEW_TABLE } : {}),
    });
    const checkInput: CheckInput = {
      description: options.cluster.description,
      sinkClass: options.sinkClass,
      source,
      events: history.events,
      truth,
      coverage: declaredCoverage(options.scenario, options.sinkClass, input.commands),
      specs: system.specs,
      expectations: system.expectations,
      serverDedupOff: dedupOff,
      target,
    };
    const check = checkRun(checkInput);
    const unverifiedReason = unverified(check);
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
    await dropDatabase(options.cluster, database, log);
    const replicas = Math.min(...options.cluster.description.shards.map((shard) => shard.replicas.length));
    return {
      index,
      phase,
      input,
      serverDedupOff: dedupOff,
      ...(profile === undefined ? {} : { profile: { name: profile, replicas } }),
      check,
      // A check that could not verify the run (its logs incomplete) is a harness failure, never a verdict.
      ...(unverifiedReason === undefined ? {} : { infraError: unverifiedReason }),
      durationMs: Date.now() - started,
      phases: { trafficMs, healMs, checkMs: Date.now() - checkStart },
    };
  } catch (error) {
    log.error({ err: describeError(error) }, 'run failed in the harness');
    return {
      index,
      phase,
      input,
      serverDedupOff: dedupOff,
      infraError: describeError(error),
      durationMs: Date.now() - started,
      phases: { trafficMs, healMs, checkMs: 0 },
    };
  }
}

/** A checked run's database goes: no later run's witness or query may ever read it. */
async function dropDatabase(cluster: StartedCluster, database: string, log: Logger): Promise<void> {
  const clients = cluster.description.shards.flatMap((shard) =>
    shard.replicas.map((replica) =>
      harnessClient(replica.direct_http, { credentials: cluster.description.credentials }),
    ),
  );
  try {
    await Promise.all(clients.map((client) => client.command({ query: `DROP DATABASE IF EXISTS ${database} SYNC` })));
  } catch (error) {
    log.warn({ err: describeError(error) }, 'dropping the run database failed; later runs use their own databases');
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}
