import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import type { Logger } from 'pino';
import type { Toxiproxy } from 'toxiproxy-node-client';
import { harnessClient } from '../../harness/clickhouse/client.ts';
import { createShardedTable } from '../../harness/clickhouse/ddl.ts';
import type { StartedCluster } from '../../harness/cluster/started-cluster.ts';
import { describeError } from '../../harness/errors.ts';
import { PROJECT_ROOT } from '../../harness/project-root.ts';
import type { MutantName } from '../mutants/mutants.ts';
import { FlowSupervisor } from '../../harness/flow/supervisor.ts';
import { columnsDdl, sourceConfig, type SourceConfig } from '../../harness/flow/source/source-config.ts';
import { collectGroundTruth } from '../../harness/oracle/ground-truth.ts';
import { dumpSystemTables } from '../../harness/oracle/system-dumps.ts';
import { arbSinkSpec, type RawSinkSpec } from '../../properties/arbitraries/arb-sink-spec.ts';
import { arbWorkload, type Workload } from '../../properties/arbitraries/arb-workload.ts';
import { clusterEndpoints } from '../../properties/arbitraries/cluster-endpoints.ts';
import type { SinkClassName } from '../../sinks/domain/sink-class-name.ts';
import { SINK_CLASSES } from '../../sinks/sink-classes.ts';
import { newModel } from '../../properties/model/chaos-model.ts';
import type { ChaosCommand } from '../../properties/model/commands.ts';
import type { ScenarioContext, ScenarioDefinition } from '../scenarios/scenario.ts';
import { checkRun, type RunCheck } from './check-run.ts';
import { PipelineSystem } from './pipeline-system.ts';
import { settleCluster } from './settle-cluster.ts';

export interface ScenarioRunOptions {
  readonly cluster: StartedCluster;
  readonly toxiproxy: Toxiproxy;
  readonly scenario: ScenarioDefinition;
  readonly sinkClass: SinkClassName;
  readonly numRuns: number;
  readonly seed: number;
  readonly path?: string | undefined;
  readonly dir: string;
  readonly timeLimitMs: number;
  readonly log: Logger;
  /** Hosts a deliberately broken sink instead of the real one (the checkers' self-test). */
  readonly mutant?: MutantName;
  /**
   * For the classes that send no token, turns ClickHouse's own block dedup off
   * (`replicated_deduplication_window = 0`): it drops a replayed identical block by content
   * hash, which would hide a sink that re-inserts. The catalogue keeps the server default, as
   * users' tables have it.
   */
  readonly withoutServerDedup?: boolean;
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
  readonly input: RunInput;
  readonly check?: RunCheck;
  readonly infraError?: string;
  readonly durationMs: number;
  readonly phases: { readonly trafficMs: number; readonly healMs: number; readonly checkMs: number };
}

export interface ScenarioOutcome {
  readonly runs: readonly ExecutedRun[];
  /** fast-check's verdict: the shrunk counterexample when a run violated the guarantee. */
  readonly details: fc.RunDetails<[RunInput]>;
}

const PLACEHOLDER_DATABASE = 'chaos';
const MUTANT_FACTORY = resolve(PROJECT_ROOT, 'chaos/mutants/mutant-sink-factory.ts');
const TABLE = 'events';

export function scenarioContext(options: Pick<ScenarioRunOptions, 'cluster'>, spec: RawSinkSpec): ScenarioContext {
  const description = options.cluster.description;
  const named = new Set<string>();
  const parameters = spec.parameters;
  for (const host of [parameters.host, ...((parameters.hosts as string[] | undefined) ?? []), ...Object.values((parameters.shard_hosts as Record<string, string[]> | undefined) ?? {}).flat()]) {
    if (typeof host === 'string') named.add(host);
  }
  const specReplicas = description.shards.flatMap((shard) =>
    shard.replicas
      .filter((replica) => named.has(new URL(replica.http).hostname))
      .map((replica) => ({ name: replica.name, shard: shard.name, clientProxy: replica.proxies.client, keeperProxies: replica.proxies.keepers })),
  );
  return { description, specReplicas, keepers: description.keepers.map((keeper) => keeper.name), spec };
}

export function arbRunInput(options: Pick<ScenarioRunOptions, 'cluster' | 'scenario' | 'sinkClass'>): fc.Arbitrary<RunInput> {
  const endpoints = clusterEndpoints(options.cluster.description);
  const target = { sinkClass: options.sinkClass, name: 'chaos_sink', database: PLACEHOLDER_DATABASE, table: `${TABLE}_rep`, endpoints };
  const workload = (options.scenario.workload ?? arbWorkload()).map((w) => (options.scenario.partitions === undefined ? w : { ...w, partitions: options.scenario.partitions }));
  return fc.record({
    workload,
    sourceSeed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    specAndCommands: (options.scenario.specs?.(target) ?? arbSinkSpec(target, options.scenario.forms ? { forms: options.scenario.forms } : {})).chain((spec) =>
      options.scenario.commands(scenarioContext(options, spec)).map((commands) => ({ spec, commands })),
    ),
  }).map(({ workload: w, sourceSeed, specAndCommands }) => ({ workload: w, sourceSeed, ...specAndCommands }));
}

/**
 * Runs a scenario for one class as a fast-check property over real runs: each run gets its own
 * database, state store and history; a violation fails the property (and is shrunk); a harness
 * failure is recorded as infra-error and does not shrink.
 */
export async function runScenario(options: ScenarioRunOptions): Promise<ScenarioOutcome> {
  const runs: ExecutedRun[] = [];
  let replayHeld = false;
  const property = fc.asyncProperty(arbRunInput(options), async (input) => {
    // A replay (--path) is about one case: once it held, the cases fast-check would try after it
    // are skipped instead of run (a failing one still shrinks further).
    fc.pre(!replayHeld);
    const run = await executeRun(options, input, runs.length);
    runs.push(run);
    const held = run.check?.verdict !== 'violation';
    if (options.path !== undefined && runs.length === 1 && held) replayHeld = true;
    return held;
  });
  const details = await fc.check(property, {
    seed: options.seed,
    ...(options.path ? { path: options.path } : {}),
    numRuns: options.numRuns,
    markInterruptAsFailure: true,
    interruptAfterTimeLimit: options.timeLimitMs,
    endOnFailure: false,
  });
  return { runs, details };
}

async function executeRun(options: ScenarioRunOptions, input: RunInput, index: number): Promise<ExecutedRun> {
  const started = Date.now();
  const database = `chaos_${options.sinkClass.toLowerCase()}_${options.scenario.name.replace(/-/g, '_')}_${index}`;
  const dir = join(options.dir, `run-${index}`);
  mkdirSync(dir, { recursive: true });
  const source: SourceConfig = sourceConfig({ seed: input.sourceSeed, partitions: input.workload.partitions, messagesPerEpoch: input.workload.messagesPerEpoch, keySpace: input.workload.keySpace, payloadBytes: input.workload.payloadBytes });
  const log = options.log.child({ run: index, database });
  let trafficMs = 0;
  let healMs = 0;
  try {
    const revived = await settleCluster(options.cluster, database);
    if (revived.length > 0) log.warn({ revived }, 'cluster members were dead at the start of a run and were restarted');
    const clients = options.cluster.description.shards.flatMap((shard) => shard.replicas.map((replica) => harnessClient(replica.direct_http)));
    try {
      const settings = [
        // A chaos table holds a few hundred rows, so one part a SIGKILLed replica wrote but never
        // committed to Keeper can be half of it, and ClickHouse's start-up sanity check (default
        // ratio 0.5) would keep that replica read-only for good. At 1 it detaches such parts, as
        // it does on any table of real size; Keeper's record stays the truth.
        'replicated_max_ratio_of_wrong_parts = 1',
        // Only for the classes without a token: the window also carries token dedup, which
        // exactly-once rests on.
        ...(options.withoutServerDedup && !SINK_CLASSES[options.sinkClass].usesDedupToken ? ['replicated_deduplication_window = 0'] : []),
      ];
      await createShardedTable(clients, { database, name: TABLE, columns: columnsDdl(source), orderBy: 'id', settings: settings.join(', ') });
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
    const supervisor = new FlowSupervisor({
      dir,
      source,
      log,
      ...(options.mutant ? { factoryModule: MUTANT_FACTORY, env: { CHAOS_MUTANT: options.mutant } } : {}),
    });
    const system = new PipelineSystem(supervisor, options.cluster, options.toxiproxy, input.spec, database, log);
    const trafficStart = Date.now();
    let history;
    try {
      await system.start();
      await fc.asyncModelRun(() => ({ model: newModel(), real: system }), input.commands);
      trafficMs = Date.now() - trafficStart;
      const healStart = Date.now();
      history = await system.finish();
      healMs = Date.now() - healStart;
    } catch (error) {
      // Leave nothing behind for the next run: workers killed, every proxy healed, the cluster settled.
      system.closeHistory();
      await supervisor.close().catch(() => undefined);
      await options.toxiproxy.reset().catch(() => undefined);
      await settleCluster(options.cluster, database).catch(() => undefined);
      throw error;
    }
    const checkStart = Date.now();
    const truth = await collectGroundTruth(options.cluster.description, { database, table: TABLE });
    const check = checkRun({ cluster: options.cluster, scenario: options.scenario, sinkClass: options.sinkClass, guarantee: SINK_CLASSES[options.sinkClass].guarantee, source, history, truth, system, commands: input.commands });
    if (check.verdict !== 'pass') await dumpSystemTables(options.cluster.description, database, join(dir, 'system-tables'));
    return { index, input, check, durationMs: Date.now() - started, phases: { trafficMs, healMs, checkMs: Date.now() - checkStart } };
  } catch (error) {
    log.error({ err: describeError(error) }, 'run failed in the harness');
    return { index, input, infraError: describeError(error), durationMs: Date.now() - started, phases: { trafficMs, healMs, checkMs: 0 } };
  }
}
