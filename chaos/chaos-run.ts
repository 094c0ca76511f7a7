import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { alsoOnForcedStop } from '../harness/cli/index.ts';
import {
  attachExternalCluster,
  availableMemoryMiB,
  memoryNeedMiB,
  memoryShortfall,
  runInLanes,
  type BackendName,
  startCluster,
  type StartedCluster,
  type ProxyServerKind,
  type StartedLocalCluster,
  UNDO_JOURNAL_FILE,
} from '../harness/cluster/index.ts';
import { describeError, newRunId, type Seed } from '../harness/base/index.ts';
import type { Stamped } from '../harness/flow/history/index.ts';
import {
  classReport,
  jobVerdict,
  NO_TALLY,
  insertPerformance,
  type JobReport,
  type ScenarioReport,
  isScenarioDirName,
  scenarioDirName,
  runTimelines,
  type TaggedEvent,
} from '../reports/results/index.ts';
import { writeRunReports } from '../reports/writers/index.ts';
import { scenarioProgressLine } from './progress-line.ts';
import { classGuarantee, type JudgedClassName } from '../properties/base/index.ts';
import {
  BUDGETS,
  type Profile,
  REAL_SINK_HOST,
  replayCommand,
  type RunInput,
  runScenario,
  scenarioReport,
  type ServerDedupMode,
} from './executor/index.ts';
import { formatSlice, matrixPairs, slicePairs, type MatrixSlice } from './matrix-slice.ts';
import {
  describeOutcome,
  externalClusterJournal,
  requireUndone,
  startedClusterJournal,
  UndoJournal,
} from './nemeses/index.ts';
import { type ClusterShape, DEFAULT_SHAPE, describeShape, pairShape, shapeArgument } from './scenarios/index.ts';
import { type JobPair, jobPair, type JobScenario } from './job-catalogue.ts';
import { ENGINE_BROKERS, runEngineScenario } from './kafka-engine/index.ts';
import { runStagedScenario, whyNotStagedRunnable } from './staged-publication/index.ts';
import { reapExternalCluster } from './reap-external.ts';
import { keepersFor, whyNotRunnable } from './runnable.ts';
import { sourceCommit } from './source-commit.ts';

/** Where the chaos job runs: a cluster it starts, or one it attaches to (`external`, described by `clusterFile`). */
export type ChaosBackend = BackendName | 'external';

export interface ChaosRunOptions {
  readonly profile: Profile;
  readonly backend: ChaosBackend;
  /** The cluster file of the external backend. */
  readonly clusterFile?: string | undefined;
  readonly seed: Seed;
  readonly path?: string | undefined;
  /** A stored run input to replay (`--schedule FILE`, one class x scenario): one run, no generation. */
  readonly schedule?: RunInput | undefined;
  readonly classes: readonly JudgedClassName[];
  readonly scenarios: readonly JobScenario[];
  readonly reportDir: string;
  readonly keepCluster: boolean;
  /** ClickHouse's block dedup on the token-less classes' targets (see `ScenarioRunOptions.serverDedup`). */
  readonly serverDedup: ServerDedupMode;
  readonly log: Logger;
  readonly progress: (line: string) => void;
  /** Aborted by an interrupt: the scenario in flight and those not started are `interrupted`. */
  readonly signal?: AbortSignal;
  /** Run only this slice of the class x scenario matrix (`--shard I/N`). */
  readonly slice?: MatrixSlice;
  /** The shape of the clusters the job starts (`--shape`); undefined: the default 2x2 and one drawn from the seed. */
  readonly shape?: ClusterShape;
  /** The memory this machine can give a cluster, in MiB (default: read from the kernel before each start). */
  readonly availableMemoryMiB?: () => number;
  /** The fault proxy of the clusters the job starts (`--proxy`; default ours, the docker backend's is the real one). */
  readonly proxyServer?: ProxyServerKind;
  /** How many of the clusters the job starts may run at once (`--lanes`; default 1); an attached cluster runs its pairs one at a time. */
  readonly lanes?: number;
}

/** Keeps the cluster's own logs with the report (the cluster directory goes away on down). */
function keepClusterLogs(cluster: StartedCluster, target: string): void {
  const dir = cluster.description.dir;
  if (dir === '' || !existsSync(dir)) return;
  mkdirSync(target, { recursive: true });
  const nodes = join(dir, 'nodes');
  for (const node of existsSync(nodes) ? readdirSync(nodes) : []) {
    // stdout.log also holds the process's stderr: a crash's last words (std::terminate, a signal) land there.
    for (const file of ['clickhouse.err.log', 'stdout.log']) {
      const log = join(nodes, node, 'log', file);
      if (existsSync(log)) copyFileSync(log, join(target, `${node}.${file}`));
    }
  }
  const keepers = join(dir, 'keepers');
  for (const keeper of existsSync(keepers) ? readdirSync(keepers) : []) {
    const log = join(keepers, keeper, 'zookeeper.log');
    if (existsSync(log)) copyFileSync(log, join(target, `${keeper}.zookeeper.log`));
  }
  for (const file of ['toxiproxy.log', UNDO_JOURNAL_FILE])
    if (existsSync(join(dir, file))) copyFileSync(join(dir, file), join(target, file));
}

/** Where a cluster's logs are kept: the first cluster's in `cluster-logs`, the others' (ensemble, drawn shape, brokers, staged, replacement) apart. */
function clusterLogsDirName(groupIndex: number, group: ClusterGroup, session: number): string {
  const ensemble = group.keepers > 1 ? `-${group.keepers}-keepers` : '';
  const shape = group.shape === DEFAULT_SHAPE ? '' : `-${group.shape.shards}x${group.shape.replicas}`;
  const apart = group.apart === '' ? '' : `-${group.apart}`;
  const base = groupIndex === 0 ? 'cluster-logs' : `cluster-logs${ensemble}${shape}${apart}`;
  return session === 0 ? base : `${base}-replacement-${session}`;
}

/** Concatenates every run's history into the report's `history.jsonl`, each event tagged with its run. */
function collectHistories(runDir: string): TaggedEvent[] {
  const events: TaggedEvent[] = [];
  for (const scenarioDir of readdirSync(runDir, { withFileTypes: true }).filter(
    (entry) => entry.isDirectory() && isScenarioDirName(entry.name),
  )) {
    for (const run of readdirSync(join(runDir, scenarioDir.name))) {
      const file = join(runDir, scenarioDir.name, run, 'history.jsonl');
      if (!existsSync(file)) continue;
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (line !== '') events.push({ scenario: scenarioDir.name, run, ...(JSON.parse(line) as Stamped) });
      }
    }
  }
  writeFileSync(join(runDir, 'history.jsonl'), events.map((event) => `${JSON.stringify(event)}\n`).join(''));
  return events;
}

/** A class's scenarios in the order the matrix names them, whichever cluster ran each first. */
const inMatrixOrder = (reports: readonly ScenarioReport[], scenarios: readonly JobScenario[]): ScenarioReport[] => {
  const position = (report: ScenarioReport) => scenarios.findIndex((scenario) => scenario.name === report.name);
  return [...reports].sort((a, b) => position(a) - position(b));
};

/** A class x scenario pair of the job, in the order it runs. */
type Pair = JobPair;

/** The pairs that run on one cluster: its Keeper members, its Kafka brokers and its shape. */
interface ClusterGroup {
  readonly keepers: number;
  readonly kafka: 0 | 3;
  readonly shape: ClusterShape;
  /** What the cluster is apart for, in its logs' directory name: `kafka` (brokers), `staged` (by path), or nothing. */
  readonly apart: '' | 'kafka' | 'staged';
  readonly pairs: readonly Pair[];
}

/**
 * The pairs grouped by the cluster they need (Keeper members, shape), the default cluster's
 * first, then the longest; each group's pairs in the order the matrix (or its slice) gives; a started cluster serves one
 * group and goes down. An attached cluster serves every pair with the shape its file gives. When
 * clusters run side by side (`byPath`), the staged loader's pairs get a cluster of their own, so
 * that the default cluster's lane is not the whole job's length.
 */
export function clusterGroups(
  pairs: readonly Pair[],
  shapeOf: (pair: Pair) => ClusterShape,
  byPath: boolean,
): ClusterGroup[] {
  const groups = new Map<string, ClusterGroup>();
  for (const pair of pairs) {
    const keepers =
      pair.kind === 'sink' ? keepersFor(pair.scenario) : pair.kind === 'staged' ? pair.scenario.keepers : 1;
    const kafka = pair.kind === 'engine' ? ENGINE_BROKERS : 0;
    const shape = shapeOf(pair);
    const key = `${keepers}/${kafka}${shapeArgument(shape)}${byPath ? `/${pair.kind}` : ''}`;
    const apart = kafka > 0 ? 'kafka' : byPath && pair.kind === 'staged' ? 'staged' : '';
    const group = groups.get(key) ?? { keepers, kafka, shape, apart, pairs: [] };
    groups.set(key, { ...group, pairs: [...group.pairs, pair] });
  }
  // The default cluster first (its logs are the report's `cluster-logs`), then the longest first,
  // so that side by side the lanes end close together: a Kafka engine pair took about three
  // times a sink pair (32 s against 12 s on average in `ci` jobs).
  const first = (group: ClusterGroup) =>
    group.keepers === 1 && group.shape === DEFAULT_SHAPE && group.apart === '' ? 0 : 1;
  const cost = (group: ClusterGroup) => group.pairs.length * (group.kafka > 0 ? 3 : 1);
  const rank = (group: ClusterGroup) => group.keepers * 2 + (group.shape === DEFAULT_SHAPE ? 0 : 1);
  return [...groups.values()].sort((a, b) => first(a) - first(b) || cost(b) - cost(a) || rank(a) - rank(b));
}

/**
 * The main job: every selected class against every selected scenario on the cluster it needs
 * (the default 2x2x1 one, or one with a Keeper ensemble), reports at the end. Exit status
 * belongs to the caller: pass only when every verdict is pass.
 */
export async function runChaos(options: ChaosRunOptions): Promise<JobReport> {
  // What a killed run left in force on an attached cluster is undone first: a member it paused
  // would fail the attach checks.
  if (options.backend === 'external') await reapLeftovers(options);
  // An attached cluster is the same for every group; a started one serves its group only. It is
  // attached (and checked) before the run directory exists: a refused file leaves no empty run behind.
  const attached =
    options.backend === 'external' ? await attachExternalCluster(options.clusterFile ?? '', options.log) : undefined;
  const runId = newRunId();
  const runDir = join(options.reportDir, runId);
  mkdirSync(runDir, { recursive: true });
  const started = Date.now();
  const pairs = slicePairs(matrixPairs(options.classes, options.scenarios), options.slice).map(jobPair);
  // A slice reports the classes it ran; the whole matrix reports every selected class (one with nothing to run is inconclusive).
  const reported =
    options.slice === undefined
      ? options.classes
      : options.classes.filter((sinkClass) => pairs.some((pair) => pair.sinkClass === sinkClass));
  const results = new Map<JudgedClassName, ScenarioReport[]>();
  let clusterMemory: JobReport['clusterMemory'] = null;
  let clusterStartMs = 0;
  let backendLimits: readonly string[] = [];
  let faultProxy: ProxyServerKind | null = null;
  let done = 0;
  // What a run does to an attached cluster is undone even by a forced stop (a second signal).
  const attachedJournal =
    attached === undefined ? undefined : new UndoJournal(externalClusterJournal(options.clusterFile ?? ''), attached);
  const forgetForcedStop =
    attachedJournal === undefined ? () => undefined : alsoOnForcedStop(() => attachedJournal.undoOwn());
  // The Kafka engine's pairs share one cluster with brokers, of the job's shape; the staged loader's run on the job's shape.
  const shapeOf = (pair: Pair): ClusterShape =>
    attached !== undefined
      ? DEFAULT_SHAPE
      : pair.kind === 'sink'
        ? pairShape(options.shape, options.seed, pair.sinkClass, pair.scenario)
        : (options.shape ?? DEFAULT_SHAPE);
  // A replay line names the shape its case ran on, but for the default one (a replay recomputes it).
  const replayShape = (shape: ClusterShape): ClusterShape | undefined =>
    options.shape ?? (shape === DEFAULT_SHAPE ? undefined : shape);
  const lanes = attached === undefined ? (options.lanes ?? 1) : 1;
  const groups = clusterGroups(pairs, shapeOf, lanes > 1);
  const noPairs: ClusterGroup = { keepers: 1, kafka: 0, shape: options.shape ?? DEFAULT_SHAPE, apart: '', pairs: [] };
  const planned = groups.length > 0 ? groups : [noPairs];
  const lastGroup = planned[planned.length - 1];
  // A lane's failure (a cluster that would not start) stops the other lanes' runs too: the job
  // ends with that error, and nothing it started outlives it.
  const failed = new AbortController();
  const signal = options.signal === undefined ? failed.signal : AbortSignal.any([options.signal, failed.signal]);
  const pairOptions: ChaosRunOptions = { ...options, signal };
  const record = (pair: Pair, result: ScenarioReport) => {
    results.set(pair.sinkClass, [...(results.get(pair.sinkClass) ?? []), result]);
    done += 1;
    options.progress(scenarioProgressLine(result, done, pairs.length));
  };
  const topologyOf = (group: ClusterGroup) => ({ ...group.shape, keepers: group.keepers, kafka: group.kafka });
  const runGroup = async (group: ClusterGroup): Promise<void> => {
    const groupIndex = planned.indexOf(group);
    // An infra-error leaves a started cluster in a state nobody judged: the pairs after it get a
    // fresh one, so one broken member cannot turn into verdicts of the scenarios that follow.
    let remaining: readonly Pair[] = group.pairs;
    for (let session = 0; session === 0 || remaining.length > 0; session += 1) {
      const clusterStart = Date.now();
      const cluster =
        attached ??
        (await startCluster(options.backend as BackendName, {
          topology: topologyOf(group),
          seed: options.seed,
          logger: options.log,
          ...(options.proxyServer === undefined ? {} : { proxyServer: options.proxyServer }),
        }));
      const startMs = Date.now() - clusterStart;
      clusterStartMs += startMs;
      backendLimits = cluster.description.backend_limits;
      faultProxy = cluster.description.toxiproxy_server ?? null;
      options.progress(
        `cluster ${attached ? 'attached' : 'up'} in ${(startMs / 1000).toFixed(1)} s (${options.backend}${attached ? '' : `, ${describeShape(group.shape)}`}, ${cluster.description.keepers.length} Keeper member(s)${group.kafka > 0 ? `, ${group.kafka} Kafka brokers` : ''}); reports in ${runDir}`,
      );
      const journal = attachedJournal ?? new UndoJournal(startedClusterJournal(cluster), cluster);
      try {
        while (remaining.length > 0) {
          const [pair, ...rest] = remaining as [Pair, ...Pair[]];
          remaining = rest;
          const result = withShape(
            await runPair(pairOptions, cluster, journal, pair, runDir, runId),
            group.shape,
            replayShape(group.shape),
            attached !== undefined,
          );
          record(pair, result);
          if (result.verdict === 'infra-error' && attached === undefined && remaining.length > 0 && !signal.aborted) {
            options.progress(`replacing the cluster after ${pair.sinkClass} / ${pair.scenario.name}'s infra-error`);
            break;
          }
        }
      } finally {
        if (journal !== attachedJournal) journal.close();
        // The default cluster's memory is the one reported; an ensemble cluster's members add theirs.
        const memory = (await cluster.memoryUsage().catch(() => undefined)) ?? null;
        if (memory !== null) clusterMemory = { ...memory, ...(clusterMemory ?? {}) };
        keepClusterLogs(cluster, join(runDir, clusterLogsDirName(groupIndex, group, session)));
        const replaced = remaining.length > 0;
        const last = group === lastGroup;
        if (attached === undefined || last) {
          // One cluster is left up: the last group's (a job on several clusters takes the others down).
          if (options.keepCluster && !replaced && last) {
            (cluster as Partial<StartedLocalCluster>).handOver?.();
            process.stdout.write(`${JSON.stringify(cluster.description)}\n`);
          } else {
            await cluster.down();
          }
        }
      }
    }
  };
  await runInLanes(planned, {
    lanes,
    needMiB: (group) => memoryNeedMiB(topologyOf(group)),
    // An attached cluster is the owner's: its memory is not this machine's to count.
    shortfall: (group, available) =>
      attached === undefined ? memoryShortfall(topologyOf(group), available) : undefined,
    availableMiB: options.availableMemoryMiB ?? availableMemoryMiB,
    stopped: () => signal.aborted,
    run: async (group) => {
      try {
        await runGroup(group);
      } catch (error) {
        failed.abort(error);
        throw error;
      }
    },
    // A shape this machine cannot hold is never started: its members would die of the OOM killer
    // mid-run, read as faults nobody injected. Its pairs are inconclusive, said once.
    skip: (group, why) => {
      if ('short' in why) options.progress(`not starting the ${describeShape(group.shape)} cluster: ${why.short}`);
      for (const pair of group.pairs) {
        const result = withShape(
          'short' in why
            ? unjudgedResult(pair.scenario, pair.sinkClass, options.seed, 'inconclusive', `not run: ${why.short}`)
            : interruptedResult(pair.scenario, pair.sinkClass, options.seed, 'not started: the runner was interrupted'),
          group.shape,
          replayShape(group.shape),
          attached !== undefined,
        );
        if ('short' in why) record(pair, result);
        else results.set(pair.sinkClass, [...(results.get(pair.sinkClass) ?? []), result]);
      }
    },
  });
  forgetForcedStop();
  attachedJournal?.close();
  const timelines = runTimelines(collectHistories(runDir));
  const classes = Object.fromEntries(
    reported.map((sinkClass) => [
      sinkClass,
      classReport(
        classGuarantee(sinkClass),
        inMatrixOrder(results.get(sinkClass) ?? [], options.scenarios),
        insertPerformance(timelines.filter((timeline) => timeline.sinkClass === sinkClass)),
      ),
    ]),
  );
  const run: JobReport = {
    runId,
    backend: options.backend,
    backendLimits,
    faultProxy,
    seed: options.seed,
    profile: options.profile,
    slice: options.slice === undefined ? null : formatSlice(options.slice),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    clusterStartMs,
    clusterMemory,
    verdict: jobVerdict(classes),
    classes,
    interrupted: options.signal?.aborted === true,
    // What `chaos:merge` recomputes each slice's pairs from.
    selection: {
      classes: options.classes,
      scenarios: options.scenarios.map((scenario) => scenario.name),
      serverDedup: options.serverDedup,
      path: options.path ?? null,
    },
    commit: sourceCommit(),
  };
  writeRunReports(run, timelines, runDir, options.reportDir);
  return run;
}

/** One class x scenario on a cluster: judged, or why it was not. */
async function runPair(
  options: ChaosRunOptions,
  cluster: StartedCluster,
  journal: UndoJournal,
  pair: Pair,
  runDir: string,
  runId: string,
): Promise<ScenarioReport> {
  if (options.signal?.aborted === true)
    return interruptedResult(pair.scenario, pair.sinkClass, options.seed, 'not started: the runner was interrupted');
  if (pair.kind !== 'sink') return runPathPair(options, cluster, journal, pair, runDir, runId);
  const { sinkClass, scenario } = pair;
  // Never run half-way: its faults would fail at the first kill, pause or user it needs.
  const unrunnable = whyNotRunnable(scenario, cluster);
  if (unrunnable !== undefined) return unjudgedResult(scenario, sinkClass, options.seed, 'inconclusive', unrunnable);
  const scenarioStarted = Date.now();
  // Read afresh after the work: the signal may have aborted meanwhile.
  const aborted = (): boolean => options.signal?.aborted === true;
  // An interrupt stops the run in flight, which undoes what it did and drops its database first.
  const interrupted = () =>
    interruptedResult(
      scenario,
      sinkClass,
      options.seed,
      `interrupted after ${((Date.now() - scenarioStarted) / 1000).toFixed(1)} s: ${String((options.signal?.reason as Error | undefined)?.message ?? 'aborted')}`,
    );
  try {
    const dir = join(runDir, scenarioDirName(sinkClass, scenario.name));
    const outcome = await runScenario({
      cluster,
      journal,
      signal: options.signal,
      scenario,
      sinkClass,
      budget: BUDGETS[options.profile],
      seed: options.seed,
      path: options.path,
      schedule: options.schedule,
      dir,
      log: options.log.child({ sinkClass, scenario: scenario.name }),
      serverDedup: options.serverDedup,
      host: REAL_SINK_HOST,
      databasePrefix: `chaos_${runId.replace(/-/g, '_')}`,
    });
    return aborted() ? interrupted() : scenarioReport(scenario, sinkClass, outcome, options.seed, dir);
  } catch (error) {
    if (aborted()) return interrupted();
    return infraResult(scenario, sinkClass, options.seed, describeError(error));
  }
}

/**
 * A pair of a path outside the sinks (the Kafka engine, the staged loader) on the cluster the job
 * started. Never on an attached cluster: the engine's brokers would be the owner's, and the
 * staged scenarios kill a replica of it.
 */
async function runPathPair(
  options: ChaosRunOptions,
  cluster: StartedCluster,
  journal: UndoJournal,
  pair: Exclude<Pair, { kind: 'sink' }>,
  runDir: string,
  runId: string,
): Promise<ScenarioReport> {
  const { sinkClass, scenario } = pair;
  if (options.backend === 'external')
    return unjudgedResult(
      scenario,
      sinkClass,
      options.seed,
      'inconclusive',
      `not run: the ${pair.kind === 'engine' ? 'Kafka engine' : 'staged publication'} scenarios run only on a cluster the harness starts${pair.kind === 'engine' ? ' (with its brokers)' : ' (they kill a replica)'}`,
    );
  const unrunnable = pair.kind === 'staged' ? whyNotStagedRunnable(pair.scenario, cluster.description) : undefined;
  if (unrunnable !== undefined) return unjudgedResult(scenario, sinkClass, options.seed, 'inconclusive', unrunnable);
  const common = {
    cluster,
    journal,
    profile: options.profile,
    seed: options.seed,
    path: options.path,
    dir: join(runDir, scenarioDirName(sinkClass, scenario.name)),
    databasePrefix: `chaos_${runId.replace(/-/g, '_')}`,
    serverDedup: options.serverDedup,
    log: options.log.child({ sinkClass, scenario: scenario.name }),
    signal: options.signal,
  };
  try {
    const report =
      pair.kind === 'engine'
        ? await runEngineScenario({ ...common, scenario: pair.scenario })
        : await runStagedScenario({ ...common, scenario: pair.scenario });
    return options.signal?.aborted === true
      ? interruptedResult(scenario, sinkClass, options.seed, 'interrupted')
      : report;
  } catch (error) {
    if (options.signal?.aborted === true) return interruptedResult(scenario, sinkClass, options.seed, 'interrupted');
    return infraResult(scenario, sinkClass, options.seed, describeError(error));
  }
}

/**
 * Before anything touches an attached cluster: what runners that are gone left in force there is
 * undone (one progress line each), and a start whose leftovers cannot be undone goes no further.
 */
async function reapLeftovers(options: ChaosRunOptions): Promise<void> {
  const { journal, outcomes } = await reapExternalCluster(options.clusterFile ?? '', options.log);
  for (const outcome of outcomes) options.progress(`left by a run that is gone: ${describeOutcome(outcome)}`);
  requireUndone(outcomes, journal);
}

/** A case was generated against its cluster's shape: the report names it, and its replay line starts the same one. */
const withShape = (
  report: ScenarioReport,
  shape: ClusterShape,
  replayShape: ClusterShape | undefined,
  attached: boolean,
): ScenarioReport => ({
  ...report,
  replayCommand: `${report.replayCommand}${shapeArgument(replayShape)}`,
  ...(attached ? {} : { cluster: describeShape(shape) }),
});

function infraResult(scenario: JobScenario, sinkClass: JudgedClassName, seed: Seed, error: string): ScenarioReport {
  return unjudgedResult(scenario, sinkClass, seed, 'infra-error', error);
}

function interruptedResult(
  scenario: JobScenario,
  sinkClass: JudgedClassName,
  seed: Seed,
  note: string,
): ScenarioReport {
  return unjudgedResult(scenario, sinkClass, seed, 'interrupted', note);
}

/** A scenario that produced no judged run: the harness failed, a signal stopped it, or the cluster cannot take its faults. */
function unjudgedResult(
  scenario: JobScenario,
  sinkClass: JudgedClassName,
  seed: Seed,
  verdict: 'infra-error' | 'interrupted' | 'inconclusive',
  note: string,
): ScenarioReport {
  return {
    name: scenario.name,
    sinkClass,
    verdict,
    seed,
    replayCommand: replayCommand({ sinkClass, scenario: scenario.name, seed }),
    runs: 0,
    shrinkRuns: 0,
    stopped: 'budget-spent',
    durationMs: 0,
    phases: { trafficMs: 0, healMs: 0, checkMs: 0 },
    tally: NO_TALLY,
    anomalies: [],
    giveUps: [],
    notes: [note],
    commands: [],
    configurations: [],
  };
}
