import { setTimeout as delay } from 'node:timers/promises';
import { describeError, HarnessError } from '../../harness/base/index.ts';
import { resolveCredentials } from '../../harness/cluster/index.ts';
import {
  checkStagedRun,
  type LoadRecord,
  type ReplicaFinal,
  type StagedCheck,
  type StagedObservation,
} from '../../properties/checkers/index.ts';
import {
  type LoaderStep,
  type LoadOutcome,
  openLoaderConnection,
  owedByOperation,
  type PublishOperation,
  StagedPartitionLoader,
} from '../../sinks/index.ts';
import type { PathRunContext } from '../executor/index.ts';
import {
  describedProxies,
  ensureProxiesClean,
  type FaultWindow,
  type NemesisContext,
  RunUndo,
} from '../nemeses/index.ts';
import {
  aimedStep,
  type FaultAim,
  type JoinPlan,
  refusingOperations,
  type StagedFaultSpec,
  stagedFault,
  startingReplicas,
} from './staged-faults.ts';
import { fetchedParts } from './staged-replica-life.ts';
import { finalState, syncReplicas, tookEffect } from './staged-observe.ts';
import { Readers } from './staged-readers.ts';
import { type LoadShape, rowsPerTable, sourceLoad, tablesOf } from './staged-source.ts';
import { createTables, joinProductionTables } from './staged-tables.ts';

/** One run's whole input, drawn by its scenario. */
export interface StagedRunInput {
  readonly operation: PublishOperation;
  /** ReplicatedMergeTree on every replica of the shard; false: MergeTree on the writer only. */
  readonly replicated: boolean;
  readonly shape: LoadShape;
  readonly loads: number;
  /** The source's pause before each batch of a load arrives (the time a load takes to stage). */
  readonly arrivalMs: number;
  readonly readerPauseMs: number;
  readonly fault: StagedFaultSpec;
  /** Which load and table the fault takes (indexes, taken modulo the run's). */
  readonly aim: { readonly load: number; readonly table: number };
}

/** The loader under test: the repository's, or one built from a mutated tree (the self-test). */
export type LoaderClass = typeof StagedPartitionLoader;

export interface StagedRunContext extends PathRunContext {
  readonly loader?: LoaderClass | undefined;
}

/** What the fault did to the statement it took, seen around the proxies. */
export interface AimedOutcome {
  readonly step: LoaderStep;
  /** The loader's error on that statement; undefined: it was answered. */
  readonly error?: string | undefined;
  /** The statement had taken effect on the server when its answer was lost (read directly). */
  readonly committed?: boolean | undefined;
  /** Statements of the loader that failed while the fault was in force. */
  readonly failedWhileInForce: number;
}

export interface StagedRunResult {
  readonly check: StagedCheck;
  readonly observation: StagedObservation;
  readonly outcomes: readonly LoadOutcome[];
  readonly aimed?: AimedOutcome | undefined;
  readonly fired: boolean;
  readonly notes: readonly string[];
  readonly faults: readonly string[];
  readonly failedReads: number;
  readonly timings: { readonly trafficMs: number; readonly healMs: number; readonly checkMs: number };
}

const LOADER_ATTEMPTS = 6;
const LOADER_BACKOFF_MS = 250;

/**
 * One staged-publication run: the run's database on the shard's replicas (production and staging
 * tables), readers on every one of them, the loads staged and published by the loader with the
 * fault taking one statement, the heal, the replicas synced, the final state read directly, and
 * the check. Whatever the run made or did is undone at its end, on every path.
 */
export async function runStaged(context: StagedRunContext, input: StagedRunInput): Promise<StagedRunResult> {
  const { cluster, database, log } = context;
  const description = cluster.description;
  const undo = new RunUndo(context.journal, context.dir);
  const nemesis: NemesisContext = { cluster, proxies: undo.deps.proxies, undo, log, database };
  const joins = input.fault.kind === 'replica-joins';
  const { replicas, joiner } = startingReplicas(description, joins);
  const writer = replicas[0];
  if (writer === undefined) throw new HarnessError('STAGED_NO_SHARD', 'the cluster has no shard to publish to');
  if (joins && joiner === undefined)
    throw new HarnessError(
      'STAGED_NO_JOINER',
      "replica-joins needs a node outside the loads' replicas: a third replica of the first shard, or a second shard",
    );
  const sibling = replicas[1];
  const nodes = input.replicated ? replicas : [writer];
  const tables = tablesOf(input.shape);
  const notes: string[] = [];
  let readers: Readers | undefined;
  try {
    await ensureProxiesClean(undo.deps.proxies, describedProxies(description), true);
    for (const member of cluster.memberNames)
      if ((await cluster.memberState(member)) !== 'running')
        throw new HarnessError('STAGED_MEMBER_DOWN', `cluster member ${member} is not running at the start of the run`);
    const mismatch = input.fault.kind === 'refused-publication' ? input.fault.mismatch : undefined;
    // A mismatch the run's operation does not refuse (a storage policy apart, published by a copy) owes no refusal.
    const owesRefusal = mismatch !== undefined && refusingOperations(mismatch).includes(input.operation);
    await createTables(context, undo, nodes, tables, input.replicated, mismatch);
    const origin = Date.now();
    readers = new Readers({
      targets: nodes.map((replica) => ({ replica: replica.name, url: replica.http })),
      database,
      tables,
      pauseMs: input.readerPauseMs,
      credentials: description.credentials,
      origin,
    });
    // A replica joins once a load is published, so that it has something to copy.
    const firstAimed = joins ? 2 : 1;
    const aim: FaultAim = {
      step: aimedStep(input.fault),
      load: firstAimed + (input.aim.load % (input.loads - firstAimed + 1)),
      table: input.aim.table % tables.length,
    };
    const join: JoinPlan | undefined =
      joiner === undefined
        ? undefined
        : {
            joiner,
            make: async () => {
              await joinProductionTables(context, undo, joiner, tables);
              // A new replica copies part by part: out of service until it has synced, its reads measured apart.
              readers?.join({ replica: joiner.name, url: joiner.http });
              readers?.repairing(joiner.name);
            },
          };
    const fault = stagedFault(input.fault, writer, sibling, tables, join);
    // A replica whose metadata is lost and restored is out of service until it has synced: its reads are measured apart.
    const repairs = input.fault.kind === 'sibling-metadata-lost';
    let window: FaultWindow | undefined;
    let healing: Promise<void> | undefined;
    let aimed: { step: LoaderStep; error?: string; committed?: boolean } | undefined;
    let failedWhileInForce = 0;
    const heal = async () => {
      if (fault !== undefined && window !== undefined && window.healedAt === undefined)
        await fault.heal(nemesis, window);
    };
    const isAimed = (step: LoaderStep) =>
      step.kind === aim.step && step.load === aim.load && step.table === tables[aim.table] && step.attempt === 1;
    const connection = await openLoaderConnection({
      url: writer.http,
      ...resolveCredentials(description.credentials),
      requestTimeoutMs: 30_000,
    });
    const Loader = context.loader ?? StagedPartitionLoader;
    const loader = new Loader({
      database,
      operation: input.operation,
      maxAttempts: LOADER_ATTEMPTS,
      retryBackoffMs: LOADER_BACKOFF_MS,
      connection,
      observer: {
        arrival: () => delay(input.arrivalMs, undefined, { signal: context.signal }),
        before: async (step) => {
          context.signal?.throwIfAborted();
          if (fault === undefined || window !== undefined || !isAimed(step)) return;
          if (repairs && sibling !== undefined) readers?.repairing(sibling.name);
          window = await fault.apply(nemesis);
          aimed = { step };
        },
        after: async (step, error) => {
          if (error !== undefined && window !== undefined && window.healedAt === undefined) failedWhileInForce += 1;
          if (aimed === undefined || aimed.step !== step) return;
          aimed = {
            step,
            ...(error === undefined ? {} : { error: describeError(error) }),
            committed: await tookEffect(description, writer, database, step),
          };
          if (input.fault.kind === 'keeper-cut') {
            const until = (window?.appliedAt ?? Date.now()) + input.fault.holdMs;
            healing = delay(Math.max(0, until - Date.now())).then(heal);
          } else if (input.fault.kind === 'sibling-keeperless-start' || input.fault.kind === 'sibling-metadata-lost')
            healing = delay(input.fault.holdMs).then(heal);
          else await heal();
        },
      },
    });
    const outcomes: LoadOutcome[] = [];
    const records: LoadRecord[] = [];
    let healStarted = 0;
    try {
      for (let load = 1; load <= input.loads; load++) {
        context.signal?.throwIfAborted();
        const outcome = await loader.load(sourceLoad(load, input.shape));
        outcomes.push(outcome);
        records.push(loadRecord(load, input.shape, tables, outcome));
      }
    } finally {
      healStarted = Date.now();
      try {
        await healing;
        await heal();
      } finally {
        await connection.close();
      }
    }
    const trafficMs = healStarted - origin;
    const joined = joiner !== undefined && window !== undefined ? [joiner] : [];
    const finalNodes = [...nodes, ...joined];
    for (const replica of finalNodes) await cluster.waitHealthy(replica.name);
    await syncReplicas(description, finalNodes, database, tables, input.replicated, notes, context.signal);
    if (repairs && sibling !== undefined) readers.repaired(sibling.name);
    for (const replica of joined) readers.repaired(replica.name);
    const fetched = joined[0] === undefined ? undefined : await fetchedParts(nemesis, joined[0], tables);
    const { reads, failed } = await readers.stop();
    const healMs = Date.now() - healStarted;
    const checkStarted = Date.now();
    const final: ReplicaFinal[] = [];
    for (const replica of finalNodes)
      final.push(await finalState(description, replica, database, tables, replica === writer));
    const observation: StagedObservation = {
      tables,
      loads: records,
      final,
      reads,
      mustRefuse: owesRefusal ? records.map((record) => record.load) : [],
    };
    const check = checkStagedRun(observation, owedByOperation(input.operation));
    const aimedOutcome = aimed === undefined ? undefined : { ...aimed, failedWhileInForce };
    const fired =
      mismatch === undefined
        ? faultFired(input.fault, window, aimedOutcome, fetched, notes)
        : owesRefusal && refusalHappened(outcomes, notes);
    return {
      check,
      observation,
      outcomes,
      aimed: aimedOutcome,
      fired,
      notes,
      faults: window === undefined || fault === undefined ? [] : [fault.toString()],
      failedReads: failed,
      timings: { trafficMs, healMs, checkMs: Date.now() - checkStarted },
    };
  } finally {
    await readers?.stop();
    await undo.stop('the staged publication run ended');
  }
}

function loadRecord(load: number, shape: LoadShape, tables: readonly string[], outcome: LoadOutcome): LoadRecord {
  const rows = Object.fromEntries(tables.map((table) => [table, rowsPerTable(shape)]));
  if (outcome.outcome === 'published') return { load, rows, outcome: 'published', published: tables };
  if (outcome.outcome === 'refused') return { load, rows, outcome: 'refused', published: outcome.published };
  return {
    load,
    rows,
    outcome: outcome.phase === 'stage' ? 'gave-up-stage' : 'gave-up-publish',
    published: outcome.published,
  };
}

/** A refusal scenario's declared case: the engine refused a publication and the loader said so (the checker judges the rest). */
function refusalHappened(outcomes: readonly LoadOutcome[], notes: string[]): boolean {
  const refused = outcomes.find((outcome) => outcome.outcome === 'refused');
  if (refused === undefined) notes.push('no publication was refused');
  else notes.push(`refused: ${refused.error}`);
  return refused !== undefined;
}

/**
 * The fault counts when it did what its scenario declares, seen directly: a cut answer on a
 * statement that had taken effect (the loader heard an error, the server had run it); a sibling
 * seen stopped while the publication ran; a Keeper cut that failed a publication.
 */
function faultFired(
  spec: StagedFaultSpec,
  window: FaultWindow | undefined,
  aimed: AimedOutcome | undefined,
  fetchedParts: number | undefined,
  notes: string[],
): boolean {
  if (window === undefined || aimed === undefined) {
    notes.push('the aimed statement never ran (its load was given up before it)');
    return false;
  }
  switch (spec.kind) {
    case 'publish-cut':
    case 'stage-cut':
      if (aimed.error === undefined) notes.push('the cut statement was answered');
      else if (aimed.committed !== true) notes.push('the answer was cut before the server ran the statement');
      return aimed.error !== undefined && aimed.committed === true;
    case 'sibling-kill':
      if (window.verified !== true) notes.push('the sibling was not seen stopped');
      return window.verified === true;
    case 'keeper-leader-kill':
      if (window.verified !== true) notes.push('the Keeper leader was not seen stopped');
      return window.verified === true;
    case 'sibling-keeperless-start':
    case 'sibling-metadata-lost':
      if (window.verified !== true) notes.push('the sibling was not seen read-only after its start');
      return window.verified === true;
    case 'replica-joins':
      if (window.verified !== true) notes.push('nothing was published when the replica joined');
      notes.push(`the new replica fetched ${fetchedParts ?? 0} part(s) from its siblings`);
      return window.verified === true && (fetchedParts ?? 0) > 0;
    case 'keeper-cut':
      if (aimed.failedWhileInForce === 0) notes.push('no statement failed while the Keeper links were cut');
      return aimed.failedWhileInForce > 0;
    case 'refused-publication':
      return false;
  }
}
