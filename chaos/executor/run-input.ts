import fc from 'fast-check';
import { startedByHarness } from '../../harness/cluster/index.ts';
import {
  arbSinkSpec,
  arbWorkload,
  chainTailFirst,
  clusterEndpoints,
  LARGE_EPOCH,
  largeEpoch,
  type RawSinkSpec,
  type Workload,
} from '../../properties/arbitraries/index.ts';
import type { Schedule } from '../../properties/schedule/index.ts';
import type { ScenarioContext } from '../scenarios/index.ts';
import type { ScenarioRunOptions } from './run-options.ts';
import { TABLE, targetEndpoints } from './target-table.ts';

/** One generated run: the workload, the starting spec, the schedule, a seed for the sources. */
export interface RunInput {
  readonly workload: Workload;
  readonly spec: RawSinkSpec;
  readonly schedule: Schedule;
  readonly sourceSeed: number;
}

const PLACEHOLDER_DATABASE = 'chaos';

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

/** The most batches one epoch of one partition is cut into: volume comes from fuller batches, not more INSERTs. */
export const MAX_BATCHES_PER_EPOCH = 4;
/** A message's bytes beside its payload as a batch's byte limit counts them, with the typed columns (measured: p50 577, max 938 over 10,000). */
const TYPED_MESSAGE_BYTES = 1024;

/**
 * A batching spec whose limits cut a large epoch into at most `MAX_BATCHES_PER_EPOCH` batches:
 * the tight limits a draw gives (one row, a few hundred bytes) stay with small epochs, where they
 * cut several batches at the cost of a few INSERTs; a large epoch under them would spend a
 * whole scenario budget on INSERTs of one row.
 */
function fewBatchesPerEpoch(spec: RawSinkSpec, workload: Workload): RawSinkSpec {
  const rows = spec.dynamic_parameters.max_rows_per_batch;
  const bytes = spec.dynamic_parameters.max_bytes_per_batch;
  if (typeof rows !== 'number' || typeof bytes !== 'number') return spec;
  const leastRows = Math.ceil(workload.messagesPerEpoch / MAX_BATCHES_PER_EPOCH);
  const leastBytes =
    leastRows * (workload.payloadBytes.max + (workload.typedColumns.length > 0 ? TYPED_MESSAGE_BYTES : 128));
  if (rows >= leastRows && bytes >= leastBytes) return spec;
  return {
    ...spec,
    dynamic_parameters: {
      ...spec.dynamic_parameters,
      max_rows_per_batch: Math.max(rows, leastRows),
      max_bytes_per_batch: Math.max(bytes, leastBytes),
    },
  };
}

/** Whether a spec has the at-most-once sink send each message as its own INSERT (its queue mode). */
function sendsEachMessageAlone(spec: RawSinkSpec): boolean {
  const strategy = spec.parameters.at_most_once_strategy as { readonly enabled?: unknown } | undefined;
  return spec.sink_class_name === 'AtMostOnceClickHouseSink' && strategy?.enabled === true;
}

/** Whether a run's sink may send each message as its own INSERT, from the start or after a restart. */
function mayQueue({ spec, schedule }: Pick<RunInput, 'spec' | 'schedule'>): boolean {
  return [spec, ...schedule.flatMap((each) => ('spec' in each ? [each.spec] : []))].some(sendsEachMessageAlone);
}

/**
 * The most messages one epoch of a queue-mode run writes across its partitions, at any volume.
 * A volume above 4 reaches this mode only as time: one iteration of the `full` soak measured it
 * at 55 messages a second (47 runs, 720 s of the iteration's 3,552 s) against 426 for the ordered
 * mode, where a larger epoch costs a fuller batch.
 */
export const QUEUE_MODE_EPOCH_MOST = largeEpoch(4).max;

/**
 * A run whose sink may send each message as its own INSERT (the at-most-once queue mode, from
 * the start or after a restart into it) writes epochs of at most one large epoch's messages
 * across all its partitions (`largeEpoch(volume).max`, at most `QUEUE_MODE_EPOCH_MOST`, never
 * below `LARGE_EPOCH.min` each): a batching spec takes the profile's volume as fuller batches,
 * this mode only as more INSERTs, sent one after another. At the `ci` volume one such run (four
 * partitions of 191 messages an epoch) made 4,616 INSERTs and took 134 s of a 356 s job (seed
 * 1423956459), where a pair takes 7 s on average; partitions still write side by side, and the
 * class keeps its 5,000 messages a job.
 */
function queueModeEpochs(input: Omit<RunInput, 'sourceSeed'>, volume: number): Omit<RunInput, 'sourceSeed'> {
  const { workload } = input;
  const most = Math.min(largeEpoch(volume).max, QUEUE_MODE_EPOCH_MOST);
  const cap = Math.max(LARGE_EPOCH.min, Math.floor(most / workload.partitions));
  if (workload.messagesPerEpoch <= cap || !mayQueue(input)) return input;
  return { ...input, workload: { ...workload, messagesPerEpoch: cap } };
}

export function arbRunInput(
  options: Pick<ScenarioRunOptions, 'cluster' | 'scenario' | 'sinkClass' | 'budget'>,
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
  const workload = arbWorkload({ ...options.scenario.workload, volume: options.budget.volume }).map((w) =>
    options.scenario.partitions === undefined ? w : { ...w, partitions: options.scenario.partitions },
  );
  const specs =
    options.scenario.specs?.(target) ??
    arbSinkSpec(target, options.scenario.forms ? { forms: options.scenario.forms } : {});
  // Shrink order, each step a full real run: for a run that may send each message as its own
  // INSERT, fewer messages first (up to two tries while the schedule is as drawn), since every
  // later step then runs the cheaper case (a failing at-most-once run of 1,200 one-message
  // INSERTs took 17 s, and so did each of its shrink steps); then the schedule, the spec, the
  // rest of the workload. A batching run costs about the same at any epoch size (it cuts at most
  // `MAX_BATCHES_PER_EPOCH` batches), so trying its workload first only added steps. The source
  // seed only draws keys and payloads (another seed is not a smaller case) and is never shrunk.
  return fc
    .record({
      sourceSeed: fc.noShrink(fc.integer({ min: 1, max: 2 ** 31 - 1 })),
      rest: chainTailFirst(
        workload,
        (w) =>
          chainTailFirst(
            specs.map((spec) => fewBatchesPerEpoch(severalBatchesPerEpoch(spec, w), w)),
            (spec) =>
              options.scenario
                .commands(scenarioContext(options, spec))
                .map((schedule) => queueModeEpochs({ workload: w, spec, schedule }, options.budget.volume)),
          ),
        { cost: (_w, run) => (mayQueue(run) ? run.workload.partitions * run.workload.messagesPerEpoch : 0) },
      ),
    })
    .map(({ sourceSeed, rest }) => ({ sourceSeed, ...rest }));
}
