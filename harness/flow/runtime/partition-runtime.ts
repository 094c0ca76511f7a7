import type { Logger } from 'pino';
import {
  type DynamicParameters,
  hasErrorCode,
  InsertGaveUpError,
  type MessageId,
  type SinkClassName,
  type SinkSpec,
} from '../../../sinks/index.ts';
import type { GiveUpClaim, HistorySink } from '../history/index.ts';
import type { DeterministicSource } from '../source/deterministic-source.ts';
import type { PartitionProgress, StateStore } from '../store/state-store.ts';
import type { CrashSwitch } from './crash-points.ts';
import type { InsertGates } from './insert-gates.ts';

/** What every partition runtime is built from. */
/**
 * The messages a partition's sink wrote with an ok INSERT, counted by its observer as INSERTs
 * complete. Distinct ids, so a sink that re-sends the same rows forever makes no progress here.
 */
export class InsertTally {
  private readonly written = new Set<MessageId>();

  recordOk(messageIds: readonly MessageId[]): void {
    for (const id of messageIds) this.written.add(id);
  }

  get messagesWritten(): number {
    return this.written.size;
  }
}

export interface PartitionDeps {
  readonly spec: SinkSpec;
  readonly partition: number;
  readonly store: StateStore;
  readonly source: DeterministicSource;
  readonly history: HistorySink;
  readonly crash: CrashSwitch;
  readonly gates: InsertGates;
  readonly inserts: InsertTally;
  /** Bound to the partition already. */
  readonly log: Logger;
}

export type EpochOutcome =
  | {
      readonly status: 'committed';
      readonly epoch: number;
      readonly fromSeq: number;
      readonly toSeq: number;
      readonly batches: readonly number[];
    }
  /** At-least-once: the write failed; nothing was committed and the epoch will be processed again. */
  | {
      readonly status: 'failed';
      readonly epoch: number;
      readonly fromSeq: number;
      readonly toSeq: number;
      readonly error: string;
    }
  /** The partition was refused at start or stopped after a failure: no progress in this worker. */
  | { readonly status: 'not-running'; readonly reason: string };

export type PartitionState = 'running' | 'refused' | 'failed';

export interface PartitionStatus {
  readonly partition: number;
  readonly sinkClass: SinkClassName;
  readonly state: PartitionState;
  readonly progress: PartitionProgress;
  readonly undelivered: number;
  /**
   * Distinct messages an ok INSERT wrote since this worker started: progress while the
   * partition's own progress and backlog stand still (an at-most-once write of one large epoch,
   * many INSERTs long).
   */
  readonly messagesWritten: number;
  /** The refusal or failure message, exact. */
  readonly reason?: string;
  readonly code?: string;
}

/** One partition job: an epoch loop over one sink instance (plus its delivery loop when batching). */
export interface PartitionRuntime {
  readonly partition: number;
  /** Read one epoch from the source, hand it to the sink, commit it per the class's order. */
  runEpoch(): Promise<EpochOutcome>;
  /** Batching: resolves when the outbox is empty, rejects when delivery gave up. Others: at once. */
  drain(): Promise<void>;
  status(): PartitionStatus;
  /** Dynamic parameters for the running sink instance (a refused partition has none). */
  reconfigure(dynamic: DynamicParameters): Promise<void>;
  close(): Promise<void>;
}

/** The partition's next epoch as its committed progress and the source define it (a replay re-reads the same). */
export function readNextEpoch(deps: PartitionDeps) {
  const { spec, partition, store, source } = deps;
  const progress = store.progress(spec.name, partition);
  const epoch = progress.epoch + 1;
  const messages = source.read(progress.nextSeq, source.config.messagesPerEpoch);
  return { progress, messages, range: { epoch, fromSeq: progress.nextSeq, toSeq: progress.nextSeq + messages.length } };
}

/** The status of a partition kind without an outbox: running until a failed write stops it. */
export function statusWithoutOutbox(deps: PartitionDeps, failure: ErrorFields | undefined): PartitionStatus {
  const { spec, partition, store } = deps;
  return {
    partition,
    sinkClass: spec.sink_class_name,
    state: failure ? 'failed' : 'running',
    progress: store.progress(spec.name, partition),
    undelivered: 0,
    messagesWritten: deps.inserts.messagesWritten,
    ...(failure ? { reason: failure.message, code: failure.code } : {}),
  };
}

/** A failure as the history and the partition status carry it. */
export interface ErrorFields {
  readonly message: string;
  readonly code?: string;
}

export function errorFields(error: unknown): ErrorFields {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? { message: error.message, code } : { message: error.message };
  }
  return { message: String(error) };
}

/** The sink gave up an insert (its error code says so, whatever class the error is). */
export function isGiveUp(error: unknown): boolean {
  return hasErrorCode(error, 'SINK_INSERT_GAVE_UP');
}

/** The sink's own account of a give-up, for the history; undefined for any other failure. */
export function giveUpClaim(error: unknown): GiveUpClaim | undefined {
  if (!(error instanceof InsertGaveUpError)) return undefined;
  const { errorClass, attempts, reason, shard } = error.details;
  const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
  return {
    errorClass,
    attempts,
    reason,
    ...(shard === undefined ? {} : { shard }),
    lastError: cause.split('\n')[0] ?? cause,
  };
}

/**
 * Flow retries a failed job; after a give-up it meets the same, poisoned sink instance, which
 * must refuse the write without an INSERT. The retry happens once and is recorded either way;
 * whatever it did, the partition stays stopped until a restart.
 */
export async function retryOnGivenUpInstance(
  deps: PartitionDeps,
  batch: number,
  write: () => Promise<unknown>,
): Promise<void> {
  const { spec, partition, history, log } = deps;
  try {
    await write();
    history.append({ type: 'write-after-give-up', sink: spec.name, partition, batch, refused: false });
    log.warn({ batch }, 'the sink instance took a write after it gave up');
  } catch (error) {
    history.append({
      type: 'write-after-give-up',
      sink: spec.name,
      partition,
      batch,
      refused: hasErrorCode(error, 'SINK_POISONED'),
      error: errorFields(error),
    });
  }
}
