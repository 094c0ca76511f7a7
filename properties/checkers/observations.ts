import type { DeliveryGuarantee, InsertOutcome, SinkWarningKind } from '../../sinks/index.ts';
import type { GiveUpClaim } from '../../harness/flow/history/index.ts';
import type { AsyncInsertSettings, ReplicaTruth } from '../../harness/oracle/index.ts';
import type { RecoveryRecord } from './recoveries.ts';

/** One INSERT attempt as the history recorded it. */
export interface AttemptRecord {
  /** The history writer (one worker process, so one sink instance per partition). */
  readonly writer: string;
  readonly partition: number;
  readonly batch: number;
  readonly shard: string | null;
  readonly endpoint: string;
  readonly dedupToken?: string | undefined;
  readonly queryId: string;
  readonly messageIds: readonly string[];
  readonly outcome: InsertOutcome;
  /** The whole body was handed to the socket (the server may have it). */
  readonly sent: boolean;
  /** What the request put on its socket then (request line, headers, body), when the history recorded it. */
  readonly sentBytes?: number | undefined;
  /** The error code of a failed or unknown attempt: a ClickHouse number, or Node's / the client's code. */
  readonly errorCode?: string | undefined;
  /** The sink's own write timeout ended it (an unknown outcome with no answer in time). */
  readonly timedOut?: boolean | undefined;
  /** When the sink began the attempt (before any gate held it); `startedAt` is when its request began. */
  readonly invokedAt: number;
  readonly startedAt: number;
  readonly endedAt: number;
}

export type { ReplicaTruth } from '../../harness/oracle/index.ts';

/**
 * A partition job that ended in the sink's give-up (`delivery-failed` for the batching classes,
 * `epoch-failed` for at-least-once), with the attempts of the insert that gave up as the history
 * recorded them: the checkers judge the give-up by those, not by the sink's own account.
 */
/**
 * The `max_insert_attempts` values in force while one insert ran (one value unless a
 * reconfiguration changed it meanwhile): a give-up may come no earlier than the fewest allow and
 * no later than the most allow.
 */
export interface InsertBudget {
  readonly fewest: number;
  readonly most: number;
}

export interface GiveUpRecord {
  readonly writer: string;
  readonly partition: number;
  /** Outbox batch number (batching) or epoch (at-least-once). */
  readonly batch: number;
  readonly token?: string;
  readonly at: number;
  readonly message: string;
  readonly code?: string;
  readonly claim?: GiveUpClaim;
  readonly attempts: readonly AttemptRecord[];
  /** The messages of the batch (as its epoch commit cut it, and as its attempts carried it) or epoch. */
  readonly messageIds: readonly string[];
  /** The `max_insert_attempts` of the specs in force while the insert ran. */
  readonly budget: InsertBudget;
  /** No later worker ran this partition: the give-up is where the run left it. */
  readonly final: boolean;
}

/** The retry of a job on the instance that gave up (`write-after-give-up`). */
export interface WriteAfterGiveUp {
  readonly partition: number;
  readonly batch: number;
  readonly refused: boolean;
  readonly error?: string;
}

/** A topology refusal the runtime recorded, and what the scenario expected at that start. */
export interface RefusalRecord {
  readonly partition: number;
  readonly message: string;
  readonly at: number;
}

export interface ExpectedRefusal {
  readonly partition: number;
  /** The exact first line the seed prescribes, fingerprints and bound included in `details`. */
  readonly messagePrefix: string;
  readonly details: readonly string[];
  /** The refusing start's window: nothing of this partition may be inserted inside it. */
  readonly from: number;
  readonly until: number;
}

/**
 * Everything the checkers read: the history (attempts, acknowledgements, refusals) and the
 * ground truth. Checkers are pure: observations in, result out.
 */
export interface Observations {
  readonly guarantee: DeliveryGuarantee;
  readonly attempts: readonly AttemptRecord[];
  /** Message ids the pipeline acknowledged (committed, or acked `delivered` for at-most-once). */
  readonly acknowledged: ReadonlySet<string>;
  /** Every message id the sources produced for this sink. */
  readonly produced: ReadonlySet<string>;
  /** Produced messages stored with other values than the source gave them (a column dropped, a value cut). */
  readonly altered: ReadonlySet<string>;
  readonly replicas: readonly ReplicaTruth[];
  /** Counts as a user sees them through the `_dist` table. */
  readonly viaDistributed: ReadonlyMap<string, number>;
  /**
   * Classes that send no token: messages the server accepted in two finished INSERTs (query_log),
   * one of them perhaps dropped by its block dedup — a duplicate the table hides. Empty for the
   * token classes, whose replays are meant to be dropped.
   */
  readonly acceptedTwice: ReadonlySet<string>;
  /** The shards a message may live on (one per routing that carried it), or null when any shard is fine. */
  readonly expectedShards: (messageId: string) => readonly string[] | null;
  readonly refusals: readonly RefusalRecord[];
  readonly expectedRefusals: readonly ExpectedRefusal[];
  /** The class owes every INSERT a dedup token (the exactly-once classes). */
  readonly sendsToken: boolean;
  /** Query id -> whether the server finished the INSERT (false: it logged an exception), from query_log: every INSERT into the run's database it logged. */
  readonly serverFinished: ReadonlyMap<string, boolean>;
  /** Query id -> the `insert_deduplication_token` the server received ('' for none), from query_log. */
  readonly serverTokens: ReadonlyMap<string, string>;
  /** Query id -> the async-insert settings the server ran it under, from query_log (records that carry them). */
  readonly serverAsyncSettings: ReadonlyMap<string, AsyncInsertSettings>;
  /**
   * Query id of every attempt -> the `async_insert` values the specs that may have been in force
   * when it began ask for: one, or both while a reconfiguration was being taken.
   */
  readonly asyncInsertAllowed: ReadonlyMap<string, readonly boolean[]>;
  /**
   * Attempts the server answered (ok, or an error with a ClickHouse code) that their replica's
   * query_log lacks although no restart wiped it, one line each: the log cannot vouch for the run.
   */
  readonly unloggedAttempts: readonly string[];
  readonly giveUps: readonly GiveUpRecord[];
  readonly writesAfterGiveUp: readonly WriteAfterGiveUp[];
  /** Batching classes: every message of a batch the runtime marked `delivered`; no give-up excuses one. */
  readonly deliveredIds: ReadonlySet<string>;
  /** Valid dynamic parameters a running sink threw on (`reconfigure-failed`). */
  readonly reconfigureFailures: readonly { readonly partition: number; readonly message: string }[];
  /** Epochs the sink failed before any commit (`epoch-failed`): at-least-once writes, a batching class's cut. */
  readonly epochFailures: readonly { readonly partition: number; readonly message: string }[];
  /**
   * At-most-once ordered mode: messages committed into `output_messages` that no INSERT attempt
   * ever carried and that were never delivered — dropped while still pending.
   */
  readonly pendingDropped: readonly string[];
  /**
   * A warning the run's table makes the sink owe or forbids (plain MergeTree without a window:
   * `no-block-dedup`; a dedup window shorter than `replay_horizon`: `dedup-window-short`), and
   * whether the sink gave it; undefined when the run judges none.
   */
  readonly judgedWarning?: { readonly kind: SinkWarningKind; readonly expected: boolean; readonly given: boolean };
  /** A materialized view behind the target: what its table holds, and what the class owes there. */
  readonly view?: ViewObservations;
  /** Every heal's recovery the executor watched: the bound, whether the sink drained within it, the figures. */
  readonly recoveries: readonly RecoveryRecord[];
  /** The schedule ended after step `ran` of `steps`, the sink having stalled; absent when it ran whole. */
  readonly scheduleCut?: { readonly ran: number; readonly steps: number };
}

/** The table a materialized view fills from the sink's target, and the guarantee owed on it. */
export interface ViewObservations {
  readonly replicas: readonly ReplicaTruth[];
  /** Exactly-once degrades to at-least-once on a view whose blocks are not deduplicated (ClickHouse #76110). */
  readonly guarantee: DeliveryGuarantee;
}
