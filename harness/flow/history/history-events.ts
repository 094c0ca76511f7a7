import type { AtMostOnceAck, InsertOutcome, SinkClassName, SinkWarningKind } from '../../../sinks/index.ts';
import type { ServerInsert } from './server-insert.ts';
import type { CrashPlan, CrashPoint } from './crash-point.ts';
import type { FaultType } from './fault-type.ts';
import type { GatedAttempt, GatePhase } from './gated-attempt.ts';

/**
 * Every event of a run's history, one JSON object per line. The checkers compute acknowledged /
 * lost / duplicated from these plus ground truth, so the meaning of "acknowledged" lives here:
 * - batching classes and at-least-once: a message is acknowledged once its epoch is in an
 *   `epoch-commit` event (or below `nextSeq` of a later `state-snapshot`);
 * - at-most-once: a message is acknowledged only by an `acks` entry `delivered`, or `queued`
 *   followed by an `ok` `insert-complete` of its own INSERT (queue mode). Its epoch was committed
 *   BEFORE the write, so a commit acknowledges nothing.
 */
export type FlowEvent =
  | WorkerLaunchEvent
  | WorkerExitEvent
  | WorkerStartEvent
  | SpecRefusalEvent
  | StoreRefusalEvent
  | StateSnapshotEvent
  | PartitionStartedEvent
  | PartitionRefusedEvent
  | InsertInvokeEvent
  | InsertSentEvent
  | InsertCompleteEvent
  | InsertGatedEvent
  | EpochCommitEvent
  | EpochFailedEvent
  | DeliveredEvent
  | DeliveryFailedEvent
  | WriteAfterGiveUpEvent
  | AcksEvent
  | SinkWarningEvent
  | CrashEvent
  | ReconfiguredEvent
  | ReconfigureFailedEvent
  | FaultStartEvent
  | FaultEndEvent
  | FaultMissedEvent
  | RecoveryEvent
  | ScheduleCutEvent;

export type FlowEventType = FlowEvent['type'];

/** What the writer adds to every event. `at` is wall-clock ms (fractional); `seq` orders one writer's lines. */
export interface Stamp {
  readonly at: number;
  readonly writer: string;
  readonly pid: number;
  readonly seq: number;
}

export type Stamped<E extends FlowEvent = FlowEvent> = E & Stamp;

/** Supervisor: a worker process was started (`restart`: a worker ran on these partitions before). */
export interface WorkerLaunchEvent {
  readonly type: 'worker-launch';
  readonly worker: string;
  readonly workerPid: number;
  readonly restart: boolean;
  readonly sink: string;
  /** As the launch spec spelled it, before validation: a C++ name, or a class the worker will refuse. */
  readonly sinkClass: string;
  readonly partitions: readonly number[];
  readonly crash?: CrashPlan;
  /** The spec the worker was given, whole: what the checkers' guard model and placement expectation read. */
  readonly spec: unknown;
  /** The change this launch applies, as its caller names it (a topology change, a restart after a give-up). */
  readonly label?: string;
}

/** Supervisor: a worker process ended. `signal: 'SIGKILL'` after a `crash` event is a planned crash. */
export interface WorkerExitEvent {
  readonly type: 'worker-exit';
  readonly worker: string;
  readonly workerPid: number;
  readonly code: number | null;
  readonly signal: string | null;
}

/** Worker: the spec was accepted and the store opened. */
export interface WorkerStartEvent {
  readonly type: 'worker-start';
  readonly worker: string;
  readonly sink: string;
  readonly sinkClass: SinkClassName;
  readonly partitions: readonly number[];
}

/** Worker: the spec was refused (e.g. a class the registry lacks) before the store was opened. */
export interface SpecRefusalEvent {
  readonly type: 'spec-refusal';
  readonly worker: string;
  readonly code: string;
  readonly message: string;
}

/** Worker: the state file was refused (corrupt, foreign, other schema version). */
export interface StoreRefusalEvent {
  readonly type: 'store-refusal';
  readonly worker: string;
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/** Worker, at start: what the store holds for a partition (committed progress survives even a lost commit event). */
export interface StateSnapshotEvent {
  readonly type: 'state-snapshot';
  readonly sink: string;
  readonly partition: number;
  readonly nextSeq: number;
  readonly epoch: number;
  readonly nextBatch: number;
  readonly undelivered: readonly { readonly number: number; readonly token: string }[];
}

export interface PartitionStartedEvent {
  readonly type: 'partition-started';
  readonly sink: string;
  readonly sinkClass: SinkClassName;
  readonly partition: number;
  /** Batching classes: the fingerprints `init` returned. */
  readonly fingerprints?: { readonly routing: string; readonly targets: Readonly<Record<string, string>> };
}

/** The sink's `init` threw: the partition makes no progress in this worker. `message` is exact. */
export interface PartitionRefusedEvent {
  readonly type: 'partition-refused';
  readonly sink: string;
  readonly sinkClass: SinkClassName;
  readonly partition: number;
  readonly code: string;
  readonly message: string;
}

/** The identity of one INSERT attempt; `queryId` + `attempt` pair the invoke/sent/complete events. */
export interface AttemptKey {
  readonly sink: string;
  readonly partition: number;
  /** Outbox batch number, at-least-once epoch, or at-most-once message seq (see `InsertAttempt`). */
  readonly batch: number;
  readonly queryId: string;
  readonly attempt: number;
}

/** `beforeInsert`: nothing has been sent yet. */
export interface InsertInvokeEvent extends AttemptKey {
  readonly type: 'insert-invoke';
  readonly batchToken?: string;
  readonly dedupToken?: string;
  readonly shard: string | null;
  readonly endpoint: string;
  readonly messageIds: readonly string[];
}

/** `insertSent`: the whole body is on the wire, the response is pending. */
export interface InsertSentEvent extends AttemptKey {
  readonly type: 'insert-sent';
  /** What the request put on its socket (request line, headers, body); absent in histories written before. */
  readonly bytes?: number;
}

export interface InsertCompleteEvent extends AttemptKey {
  readonly type: 'insert-complete';
  readonly outcome: InsertOutcome;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly error?: {
    readonly message: string;
    readonly code?: string;
    readonly class?: string;
    /** The sink's own write timeout ended the attempt (absent in histories written before). */
    readonly timedOut?: true;
  };
}

/**
 * Worker: a gate held this attempt (`request`: before its request started; `outcome`: after it
 * ended, before the sink acted on it) for `heldMs`; `opened` is false when the hold limit ran out
 * before the driver answered.
 */
export interface InsertGatedEvent extends GatedAttempt {
  readonly type: 'insert-gated';
  readonly phase: GatePhase;
  readonly heldMs: number;
  readonly opened: boolean;
  readonly outcome?: InsertOutcome;
}

export interface EpochCommitEvent {
  readonly type: 'epoch-commit';
  readonly sink: string;
  readonly sinkClass: SinkClassName;
  readonly partition: number;
  readonly epoch: number;
  /** The epoch's input `[fromSeq, toSeq)`. */
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly messageIds: readonly string[];
  /** Outbox batches created by this epoch (batching classes; empty otherwise). */
  readonly batches: readonly { readonly number: number; readonly token: string; readonly messages: number }[];
}

/**
 * What the sink said of a give-up (`InsertGaveUpError.details`): its own account, which the
 * checkers compare with the attempts the history recorded.
 */
export interface GiveUpClaim {
  readonly errorClass: string;
  readonly attempts: number;
  readonly reason: string;
  readonly shard?: string;
  /** The first line of the last insert error. */
  readonly lastError: string;
}

/** At-least-once: the write failed, the epoch is not committed and will be processed again. */
export interface EpochFailedEvent {
  readonly type: 'epoch-failed';
  readonly sink: string;
  readonly partition: number;
  readonly epoch: number;
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly error: { readonly message: string; readonly code?: string };
  readonly giveUp?: GiveUpClaim;
}

/** Batching: the batch is marked delivered in the store. */
export interface DeliveredEvent {
  readonly type: 'delivered';
  readonly sink: string;
  readonly partition: number;
  readonly batch: number;
  readonly token: string;
}

/** Batching: `deliver` gave up; the sink instance is poisoned and the partition stops. */
export interface DeliveryFailedEvent {
  readonly type: 'delivery-failed';
  readonly sink: string;
  readonly partition: number;
  readonly batch: number;
  readonly token: string;
  readonly error: { readonly message: string; readonly code?: string };
  readonly giveUp?: GiveUpClaim;
}

/**
 * After a give-up the runtime retries the failed job once on the same sink instance, as Flow
 * retries a failed job: a poisoned instance must refuse it (`SINK_POISONED`) without an INSERT.
 * `batch` is the outbox batch (batching) or the epoch (at-least-once).
 */
export interface WriteAfterGiveUpEvent {
  readonly type: 'write-after-give-up';
  readonly sink: string;
  readonly partition: number;
  readonly batch: number;
  readonly refused: boolean;
  readonly error?: { readonly message: string; readonly code?: string };
}

/** At-most-once: one ack per message of the epoch, in order. `error` when `write` itself threw. */
export interface AcksEvent {
  readonly type: 'acks';
  readonly sink: string;
  readonly partition: number;
  readonly epoch: number;
  readonly acks: readonly { readonly id: string; readonly ack: AtMostOnceAck }[];
  readonly error?: { readonly message: string; readonly code?: string };
}

/** Worker: a warning the sink gave (session start or reconfiguration), as it handed it to the runtime. */
export interface SinkWarningEvent {
  readonly type: 'sink-warning';
  readonly sink: string;
  readonly partition: number;
  readonly kind: SinkWarningKind;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Worker: written (and synced) right before the worker SIGKILLs itself at an armed crash point. */
export interface CrashEvent {
  readonly type: 'crash';
  readonly worker: string;
  readonly point: CrashPoint;
  readonly partition: number;
  readonly batch: number;
  readonly occurrence: number;
}

/** Worker: a running sink threw when handed valid dynamic parameters; its partition goes on with the old ones. */
export interface ReconfigureFailedEvent {
  readonly type: 'reconfigure-failed';
  readonly sink: string;
  readonly partition: number;
  readonly error: { readonly message: string; readonly code?: string };
}

/**
 * Worker: the running sinks of these partitions took new dynamic parameters. Written once they
 * all have; `startedAt` (wall-clock ms) is when the change began to apply.
 */
export interface ReconfiguredEvent {
  readonly type: 'reconfigured';
  readonly startedAt: number;
  readonly sink: string;
  readonly partitions: readonly number[];
  readonly dynamic: Readonly<Record<string, unknown>>;
}

/**
 * How a fault shows that it met the sink's traffic, judged on the INSERT it was aimed at (or on
 * the cluster for `witness`): `error` — that INSERT did not end `ok`; `slow` — it took at least
 * `slowerThanMs`; `stalled` — it took at least `slowerThanMs` or did not end `ok` (a Keeper
 * leader gone: the INSERT waits for an election, or gives up first); `blocked` — it did not end
 * `ok`, or the fault held it for a while (200 ms, several unfaulted INSERTs) and it ended only
 * after the heal began; `traffic` — its body went through the faulted link; `witness` — the
 * nemesis saw the effect on the cluster (a replica's failing fetches) and says so in `fault-end`.
 */
export type FaultEffect = 'error' | 'slow' | 'stalled' | 'blocked' | 'traffic' | 'witness';

/**
 * What, beyond its effect, the INSERT's record or the nemesis must show for a fault to count as
 * fired — a small closed set the fault's family picks from (`chaos/nemeses/families/`), recorded
 * on its `fault-start` so the checker needs nothing but the history: `process-seen` — the nemesis
 * saw the process stopped; `client-link-carried` — the faulted client proxy carried the aimed
 * INSERT's bytes, by its counters; `links-active` — the faulted proxies carried traffic while the
 * fault was in force (a Keeper link, whose share of the INSERT the history does not count);
 * `server-code` — the INSERT failed with the fault's ClickHouse code, and its query_log says so;
 * `failed-at-link` — it failed without a ClickHouse code (at the link, not on the server);
 * `keeper-wait` — the server recorded one of the INSERT's own Keeper requests waiting at least
 * `slowerThanMs` for its answer (its replica's zookeeper_log), which only a slow Keeper link or a
 * slow Keeper can cause; `window-hit` — the nemesis saw the aimed INSERT running inside every
 * server-side window the fault names (`fault-start.windows`, `fault-end.windowHit`).
 */
export const FAULT_PROOFS = [
  'process-seen',
  'client-link-carried',
  'links-active',
  'server-code',
  'failed-at-link',
  'keeper-wait',
  'window-hit',
] as const;
export type FaultProof = (typeof FAULT_PROOFS)[number];

/** The kind of unknown outcome a fault is built to produce: the INSERT committed, or it never did. */
export type UnknownKind = 'landed' | 'absent';

/** The toxic a fault added: its stream and its attributes (what its effect is measured against). */
export interface ToxicSpec {
  readonly stream: 'upstream' | 'downstream';
  readonly attributes: Readonly<Record<string, number>>;
}

/**
 * What the fault proxy said of its proxies' traffic (Toxiproxy's `GET /metrics` with
 * `-proxy-metrics`): per proxy, the bytes its upstream direction received from its clients.
 */
export interface LinkCounters {
  /** Proxy name -> bytes received upstream; a proxy the proxy server reported no counter for is absent. */
  readonly received: Readonly<Record<string, number>>;
  /** Why nothing could be read (no `/metrics`, no answer), when nothing could. */
  readonly unavailable?: string;
  /**
   * Proxy name -> the address it listens on (`host:port`), which is what a server behind it names
   * as its peer (a replica's zookeeper_log names the Keeper endpoint it dialled). Absent in
   * histories stored before it was read, and for a proxy that could not be read.
   */
  readonly listens?: Readonly<Record<string, string>>;
}

/**
 * The chaos executor's nemesis, as Jepsen records it beside the client operations: a fault took
 * effect (`fault-start`) and was healed (`fault-end`, same `window`). A fault aimed at an INSERT
 * names it (`aimedAt`): the evidence that the fault fired is that attempt's own record.
 */
export interface FaultStartEvent {
  readonly type: 'fault-start';
  readonly window: number;
  readonly fault: FaultType;
  readonly description: string;
  readonly targets: readonly string[];
  readonly effect: FaultEffect;
  readonly slowerThanMs?: number;
  readonly aimedAt?: {
    readonly gate: number;
    readonly queryId: string;
    readonly attempt: number;
    readonly endpoint: string;
  };
  readonly expects?: UnknownKind;
  /** What it must show besides its effect (absent in histories stored before it was recorded: read from the fault type). */
  readonly proofs?: readonly FaultProof[];
  /** A toxic fault: the toxic it added on every target. */
  readonly toxic?: ToxicSpec;
  /** A server-error fault: the ClickHouse code the servers answer an INSERT while it is in force. */
  readonly serverCode?: string;
  /** A toxic fault: its proxies' counters when it was applied (before the toxic). */
  readonly links?: LinkCounters;
  /**
   * The window of the other fault in force on the same aimed INSERT at once (`overlapping-faults`):
   * its evidence may come from the sink's later attempts while it is in force, not only the aimed one.
   */
  readonly overlaps?: number;
  /** A server-window fault: the windows it must be seen acting in, in order. */
  readonly windows?: readonly ServerWindow[];
  /** A replica kill of the sinks' path: what the victim's query_log held right before it (`LogBeforeKill`). */
  readonly logBeforeKill?: LogBeforeKill;
}

/**
 * A replica's log of the run's INSERTs, read right before a kill: an embedded node restarts with
 * empty system logs, so without it the oracle could settle none of that replica's earlier INSERTs.
 * `askedAt` is when the nemesis asked the replica to flush its logs: an INSERT the server answered
 * before then is in `inserts` (the server logs an INSERT before it answers).
 */
export interface LogBeforeKill {
  readonly askedAt: number;
  readonly inserts: readonly ServerInsert[];
}

/**
 * A moment inside the server's INSERT path a fault acts in (`chaos/nemeses/FAILPOINTS.md`):
 * `part-written` — the part is renamed into the table (PreActive) and its Keeper commit not yet
 * sent; `commit-unconfirmed` — the Keeper commit failed on a lost session and the INSERT is held
 * (a pausable failpoint) while it tries to learn whether the commit landed.
 */
export type ServerWindow = 'part-written' | 'commit-unconfirmed';

/** What the nemesis saw of the windows it aimed at: per window hit, the INSERTs running on the replica then. */
export interface WindowHit {
  readonly replica: string;
  /** Each window reached, in order, with the query ids of the INSERTs running on the replica at that moment. */
  readonly hits: readonly {
    readonly window: ServerWindow;
    readonly queryIds: readonly string[];
    readonly at: number;
  }[];
  /** Why a window was not reached (a failpoint the engine lacks, a pause that never came), when one was not. */
  readonly missed?: string;
}

export interface FaultEndEvent {
  readonly type: 'fault-end';
  readonly window: number;
  readonly fault: FaultType;
  /** When the heal began (a process continued, a proxy came back): a blocked INSERT ends after it. */
  readonly healStartedAt?: number;
  /** Process and witness faults: the nemesis observed the effect itself (process state, a replica's tables). */
  readonly verified?: boolean;
  /** A toxic fault: its proxies' counters once healed. */
  readonly links?: LinkCounters;
  /** A server-window fault: the windows the nemesis saw the INSERT in. */
  readonly windowHit?: WindowHit;
}

/** A fault was armed on the sink's next INSERT, and none came before the deadline: it never acted. */
export interface FaultMissedEvent {
  readonly type: 'fault-missed';
  readonly fault: FaultType;
  readonly description: string;
  readonly reason: string;
}

/**
 * Why a recovery was watched: the heal that ended a fault episode (`window` names it), or the
 * settle phase, once every fault of the run was healed.
 */
export type RecoveryTrigger = 'episode' | 'settle';

/**
 * What a healthy sink may take, once the cluster is healthy again, to deliver what it held: the
 * attempt in flight then may need its whole `write_timeout` to end, the sink waits
 * `retry_backoff`, and its next attempt may again need `write_timeout`; `slackMs` covers a
 * pause in progress beyond those waits. `ms` is their sum, the bound a run is judged by.
 */
export interface RecoveryBound {
  readonly ms: number;
  readonly writeTimeoutMs: number;
  readonly retryBackoffMs: number;
  readonly slackMs: number;
}

/**
 * The chaos executor's nemesis: after a heal, the clock started once the cluster was verified
 * healthy (`healthyAt`: every member running, no replica of the run's database read-only or
 * without its Keeper session), and the sink then drained what it held (`drained`) or did not
 * within the bound (`stalled`: the executor restarted it, as an operator restarts a hung sink).
 */
export interface RecoveryEvent {
  readonly type: 'recovery';
  readonly trigger: RecoveryTrigger;
  /** The episode's fault window (`trigger: 'episode'`). */
  readonly window?: number;
  /** When the heal began (the fault's heal, or the settle phase's start). */
  readonly healedAt: number;
  readonly healthyAt: number;
  readonly bound: RecoveryBound;
  readonly outcome: 'drained' | 'stalled';
  /**
   * The last moment the sink was seen making progress (its partitions' progress or backlog
   * changed), from `healthyAt` on: the bound runs from here, so a long backlog drained steadily
   * never stalls. Absent in histories written before it (the bound then ran from `healthyAt`).
   */
  readonly progressAt?: number;
  /** When the drain ended (`drained`) or the bound ran out with no progress (`stalled`). */
  readonly endedAt: number;
}

/**
 * The chaos executor ended the schedule early, after step `ran` of `steps`: the sink stalled in
 * it, and a stall is a violation whatever the steps after it would show (they would only make
 * the run, and every shrink step of it, longer).
 */
export interface ScheduleCutEvent {
  readonly type: 'schedule-cut';
  readonly ran: number;
  readonly steps: number;
  readonly reason: string;
}
