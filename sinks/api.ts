/**
 * The contract between the sink classes and the runtime that hosts them (harness/flow). The
 * runtime owns state (the outbox, fingerprints, input progress) and commits it in one transaction
 * per epoch; the sinks own everything that talks to ClickHouse. Crash points and the attempt
 * history hang off `InsertObserver`, so a sink never knows it is under test.
 */
import type { Logger } from 'pino';
import type { BatchToken, DedupToken } from './domain/batch-token.ts';
import type { MessageId } from './domain/message-id.ts';
import type { ShardName } from './domain/shard-name.ts';
import type { Row } from './routing/routing-key.ts';
import type { Random } from './endpoints/endpoint-rotation.ts';
import type { DynamicParameters, SinkSpec } from './spec/sink-spec.ts';
import type { TopologyFingerprints } from './topology/topology-guard.ts';
import type { StreamColumn } from './types/stream-type.ts';

/** One message handed to a sink: id, the row it writes, its size as the batch byte limit counts it. */
export interface SinkMessage {
  readonly id: MessageId;
  readonly row: Row;
  readonly byteSize: number;
}

/** `ok`: acknowledged by ClickHouse; `failed`: proven not applied; `unknown`: sent, outcome not seen. */
export type InsertOutcome = 'ok' | 'failed' | 'unknown';

export interface InsertAttempt {
  readonly sink: string;
  /**
   * Outbox batch number (batching classes), epoch number (at-least-once), or the seq of the first
   * message of the INSERT (at-most-once; in queue mode every INSERT carries one message).
   */
  readonly batch: number;
  /** Present for the batching classes. */
  readonly batchToken?: BatchToken;
  /** The `insert_deduplication_token` sent, if any. */
  readonly dedupToken?: DedupToken | BatchToken;
  /** The shard name, or null for the `host`/`hosts` forms. */
  readonly shard: ShardName | null;
  /** `host:port` the request went to, as the spec names it (before `resolveEndpoint`). */
  readonly endpoint: string;
  readonly queryId: string;
  readonly messageIds: readonly MessageId[];
  /** 1-based, per INSERT across retries. */
  readonly attempt: number;
}

export interface InsertResult {
  readonly outcome: InsertOutcome;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly error?: {
    readonly message: string;
    readonly code?: string;
    readonly class?: 'transient' | 'unclassified' | 'permanent';
    /** The sink's own `write_timeout` ended it: no answer came in time. */
    readonly timedOut?: true;
  };
}

/** What went onto the wire for one attempt, as its socket counted it when the body was handed over. */
export interface SentRequest {
  /** Request line, headers and body (compressed when the codec compresses), in bytes. */
  readonly bytes: number;
}

/**
 * Hooks around every INSERT attempt. The runtime records history here and implements the crash
 * points (it SIGKILLs its own process from inside a hook, so the crash lands exactly there).
 * Hooks may be async; the sink awaits them.
 */
export interface InsertObserver {
  /** Crash point `before-insert`: nothing has been sent. */
  beforeInsert?(attempt: InsertAttempt): void | Promise<void>;
  /** Crash point `during-insert`: the whole request body is written, the response is pending. */
  insertSent?(attempt: InsertAttempt, sent: SentRequest): void | Promise<void>;
  /** The attempt ended (after this the sink may retry with attempt + 1). */
  afterInsert?(attempt: InsertAttempt, result: InsertResult): void | Promise<void>;
}

/** One outbox entry: a batch cut deterministically, persisted with its epoch, delivered later. */
export interface OutboxBatch {
  /** Per partition and sink, increasing by one, never reused. */
  readonly number: number;
  readonly token: BatchToken;
  readonly messages: readonly SinkMessage[];
}

/** What a batching sink persists beside its outbox and reads back at start. */
export interface BatchingSinkState {
  readonly fingerprints: TopologyFingerprints | undefined;
  /** Undelivered outbox batches, oldest first. */
  readonly undelivered: readonly OutboxBatch[];
}

/** Where a spec's `host` + `port` is reached. */
export interface EndpointAddress {
  readonly host: string;
  readonly port: number;
}
export type ResolveEndpoint = (host: string, port: number) => EndpointAddress;

/**
 * What a sink warns its operator of at session start or on reconfiguration (the seed's warning
 * lines), logged and also handed to the runtime, so a test can hold the sink to having said it:
 * - `no-block-dedup`: plain MergeTree without `non_replicated_deduplication_window`, exactly-once
 *   degrades to at-least-once;
 * - `dedup-window-short`: the dedup window that applies is shorter than `replay_horizon`;
 * - `column-note`: a table column the stream does not write (DEFAULT, MATERIALIZED, ALIAS);
 * - `password-unset`: `password_env_var` names a variable the environment does not set.
 */
export type SinkWarningKind = 'no-block-dedup' | 'dedup-window-short' | 'column-note' | 'password-unset';

export interface SinkWarning {
  readonly kind: SinkWarningKind;
  readonly message: string;
  /** The structured attributes the log line carries. */
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface SinkContext {
  readonly partition: number;
  readonly observer: InsertObserver;
  /** Called with every warning the sink logs (after logging it). */
  readonly onWarning?: (warning: SinkWarning) => void;
  readonly env: NodeJS.ProcessEnv;
  /**
   * The input stream's columns. Checked against the table at session start (section 5); they
   * also decide which columns every INSERT names.
   */
  readonly streamSchema: readonly StreamColumn[];
  /**
   * Maps a spec host to the address to dial (default: as written, resolved by DNS). The embedded
   * cluster serves every node on 127.0.0.1 behind its own proxy port, which one shared `port`
   * cannot express; its runtime passes an address book keyed by node name.
   */
  readonly resolveEndpoint?: ResolveEndpoint;
  /** The RNG behind `host_selection_policy = random_start` (default `Math.random`). */
  readonly random?: Random;
  /** Parent logger (default: the root logger's `sink` component). */
  readonly logger?: Logger;
}

/**
 * What every class does on dynamic reconfiguration (validate the new section with
 * `validateDynamicParameters` first): no repeat of the metadata check; a changed `write_timeout`
 * recreates the clients and re-reads the dedup window; a changed `replay_horizon` or
 * `async_insert` re-runs only the dedup-window comparison.
 */
export interface Reconfigurable {
  reconfigure(dynamic: DynamicParameters): Promise<void>;
}

/** Both exactly-once classes. */
export interface BatchingSink extends Reconfigurable {
  readonly kind: 'batching';
  readonly spec: SinkSpec;
  /**
   * Reads ClickHouse metadata when needed and runs the topology guard against the persisted
   * state: throws `TopologyChangedError` (the seed's exact message) when undelivered batches
   * exist and a fingerprint changed. Returns the fingerprints to persist from now on.
   */
  init(state: BatchingSinkState): Promise<TopologyFingerprints>;
  /** Pure: cuts an epoch's messages into batches (the partial batch is flushed at epoch end). */
  cut(messages: readonly SinkMessage[], firstBatchNumber: number): OutboxBatch[];
  /** Inserts one batch, shard by shard in order, retrying per the policy; throws on give-up. */
  deliver(batch: OutboxBatch): Promise<void>;
  close(): Promise<void>;
}

/** At-least-once: the epoch's rows go in synchronously before the epoch commits. */
export interface AtLeastOnceSink extends Reconfigurable {
  readonly kind: 'at-least-once';
  readonly spec: SinkSpec;
  /** Throws when the epoch could not be written; the runtime then does not commit it. */
  writeEpoch(epoch: number, messages: readonly SinkMessage[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Per message: `delivered`; `acked-with-error` once its INSERT started and failed or ended
 * unknown (or it could not be sent at all); `dropped` (queue full); `queued` (queue mode: admitted,
 * sent later without the caller waiting; its fate shows in the observer's `afterInsert`).
 */
export type AtMostOnceAck = 'delivered' | 'acked-with-error' | 'dropped' | 'queued';

export interface AtMostOnceSink extends Reconfigurable {
  readonly kind: 'at-most-once';
  readonly spec: SinkSpec;
  /**
   * Offers messages in order. Ordered mode (`enabled=false`): the messages are delivered in
   * order (one INSERT per shard per call) and the call resolves with their final acks; a failure
   * before the INSERT started is retried. Queue mode (`enabled=true`): each message is admitted
   * to a bounded byte queue (`queued`) or dropped with a warning (`dropped`) and the call returns
   * at once; every queued message is then sent as its own INSERT. Never inserts a message again
   * once its INSERT has started.
   */
  write(messages: readonly SinkMessage[]): Promise<readonly AtMostOnceAck[]>;
  /** Queue mode: resolves once every queued message has been sent or acked with error. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export type AnySink = BatchingSink | AtLeastOnceSink | AtMostOnceSink;
