import type Database from 'better-sqlite3';
import {
  type BatchToken,
  type MessageId,
  type OutboxBatch,
  parseMessageId,
  type SinkClassName,
  type SinkMessage,
  type TopologyFingerprints,
} from '../../../sinks/index.ts';
import { HarnessError } from '../../base/index.ts';
import { decodeFingerprints, encodeTargets } from './fingerprint-codec.ts';
import { decodeMessages, encodeMessages } from './row-codec.ts';
import { openStateFile } from './store-file.ts';

/** Where a (sink name, partition) stands. A partition never seen starts at seq 0, epoch 0, batch 1. */
export interface PartitionProgress {
  /** The first seq not yet committed: every message below it belongs to a committed epoch. */
  readonly nextSeq: number;
  /** The last committed epoch (0 = none). */
  readonly epoch: number;
  /** The number the next outbox batch gets. */
  readonly nextBatch: number;
}

/** Everything one epoch commits, in one transaction. */
export interface EpochCommit {
  readonly sink: string;
  readonly sinkClass: SinkClassName;
  readonly partition: number;
  readonly epoch: number;
  /** The epoch read `[fromSeq, toSeq)`. */
  readonly fromSeq: number;
  readonly toSeq: number;
  /** Outbox batches cut from the epoch (batching classes), numbered on from `nextBatch`. */
  readonly batches: readonly OutboxBatch[];
  /** The fingerprints the sink's `init` returned (batching classes). */
  readonly fingerprints?: TopologyFingerprints;
  /** At-most-once ordered mode: the epoch's messages, kept pending until their INSERT starts. */
  readonly output?: readonly SinkMessage[];
}

/** Pending output messages of one epoch, in seq order. */
export interface PendingOutput {
  readonly epoch: number;
  readonly messages: readonly SinkMessage[];
}

export interface UndeliveredSummary {
  readonly count: number;
  readonly batches: readonly { readonly number: number; readonly token: BatchToken }[];
}

const START: PartitionProgress = { nextSeq: 0, epoch: 0, nextBatch: 1 };

/**
 * The runtime's embedded state store (one SQLite file per runtime, shared by its workers). Each
 * mutation is one transaction, and an epoch's input progress, outbox batches and fingerprints
 * commit together or not at all. Mutations re-check the progress they build on, so two workers
 * that both think they own a partition cannot both commit the same epoch.
 */
export class StateStore {
  private constructor(
    private readonly db: Database.Database,
    readonly path: string,
  ) {}

  static open(path: string): StateStore {
    return new StateStore(openStateFile(path), path);
  }

  progress(sink: string, partition: number): PartitionProgress {
    const row = this.db
      .prepare(
        'SELECT next_seq AS nextSeq, epoch, next_batch AS nextBatch FROM partition_progress WHERE sink = ? AND partition = ?',
      )
      .get(sink, partition) as PartitionProgress | undefined;
    return row ?? START;
  }

  fingerprints(sink: string, partition: number): TopologyFingerprints | undefined {
    const row = this.db
      .prepare('SELECT routing, targets FROM fingerprints WHERE sink = ? AND partition = ?')
      .get(sink, partition) as { routing: string; targets: string } | undefined;
    return row && decodeFingerprints(row.routing, row.targets);
  }

  /** Undelivered outbox batches, oldest first. */
  undelivered(sink: string, partition: number, limit = -1): OutboxBatch[] {
    const rows = this.db
      .prepare(
        'SELECT batch, token, messages FROM outbox WHERE sink = ? AND partition = ? AND delivered = 0 ORDER BY batch LIMIT ?',
      )
      .all(sink, partition, limit) as { batch: number; token: string; messages: string }[];
    return rows.map((row) => ({
      number: row.batch,
      token: row.token as BatchToken,
      messages: decodeMessages(row.messages),
    }));
  }

  undeliveredSummary(sink: string, partition: number): UndeliveredSummary {
    const batches = this.db
      .prepare(
        'SELECT batch AS number, token FROM outbox WHERE sink = ? AND partition = ? AND delivered = 0 ORDER BY batch',
      )
      .all(sink, partition) as { number: number; token: BatchToken }[];
    return { count: batches.length, batches };
  }

  /** The partitions this store holds state for under one sink name. */
  partitions(sink: string): number[] {
    const rows = this.db
      .prepare('SELECT partition FROM partition_progress WHERE sink = ? ORDER BY partition')
      .all(sink) as { partition: number }[];
    return rows.map((row) => row.partition);
  }

  commitEpoch(commit: EpochCommit): void {
    this.db.transaction(() => {
      const { sink, partition } = commit;
      const progress = this.progress(sink, partition);
      if (commit.fromSeq !== progress.nextSeq || commit.epoch !== progress.epoch + 1 || commit.toSeq < commit.fromSeq) {
        throw new HarnessError(
          'FLOW_STATE_CONFLICT',
          `Epoch ${commit.epoch} of sink '${sink}' partition ${partition} reads [${commit.fromSeq}, ${commit.toSeq}) but the store is at epoch ${progress.epoch}, next seq ${progress.nextSeq}; another worker runs this partition`,
        );
      }
      const insert = this.db.prepare(
        'INSERT INTO outbox (sink, partition, batch, token, epoch, message_count, byte_size, messages) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      );
      let nextBatch = progress.nextBatch;
      for (const batch of commit.batches) {
        if (batch.number !== nextBatch) {
          throw new HarnessError(
            'FLOW_STATE_CONFLICT',
            `Batch ${batch.number} of sink '${sink}' partition ${partition} is out of sequence: the next batch number is ${nextBatch}`,
          );
        }
        const bytes = batch.messages.reduce((sum, message) => sum + message.byteSize, 0);
        insert.run(
          sink,
          partition,
          batch.number,
          batch.token,
          commit.epoch,
          batch.messages.length,
          bytes,
          encodeMessages(batch.messages),
        );
        nextBatch += 1;
      }
      this.db
        .prepare(
          `INSERT INTO partition_progress (sink, partition, next_seq, epoch, next_batch, sink_class, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (sink, partition) DO UPDATE SET next_seq = excluded.next_seq, epoch = excluded.epoch, next_batch = excluded.next_batch,
             sink_class = excluded.sink_class, updated_at = excluded.updated_at`,
        )
        .run(sink, partition, commit.toSeq, commit.epoch, nextBatch, commit.sinkClass, Date.now());
      const output = this.db.prepare(
        'INSERT INTO output_messages (sink, partition, seq, epoch, message) VALUES (?, ?, ?, ?, ?)',
      );
      for (const message of commit.output ?? [])
        output.run(sink, partition, parseMessageId(message.id).seq, commit.epoch, encodeMessages([message]));
      if (commit.fingerprints) {
        this.db
          .prepare(
            `INSERT INTO fingerprints (sink, partition, routing, targets, updated_at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (sink, partition) DO UPDATE SET routing = excluded.routing, targets = excluded.targets, updated_at = excluded.updated_at`,
          )
          .run(sink, partition, commit.fingerprints.routing, encodeTargets(commit.fingerprints.targets), Date.now());
      }
    })();
  }

  /** At-most-once ordered mode: messages whose INSERT has not started, grouped by epoch, oldest first. */
  pendingOutput(sink: string, partition: number): PendingOutput[] {
    const rows = this.db
      .prepare('SELECT epoch, message FROM output_messages WHERE sink = ? AND partition = ? ORDER BY seq')
      .all(sink, partition) as { epoch: number; message: string }[];
    const pending: { epoch: number; messages: SinkMessage[] }[] = [];
    for (const row of rows) {
      const last = pending.at(-1);
      const messages = decodeMessages(row.message);
      if (last?.epoch === row.epoch) last.messages.push(...messages);
      else pending.push({ epoch: row.epoch, messages });
    }
    return pending;
  }

  /**
   * At-most-once: the INSERT carrying these messages is about to start, so they leave
   * `output_messages` for good — a restart must never offer them again. All or nothing: when one
   * of them is no longer pending (another worker took it: this one is a zombie), none is taken and
   * the answer is false, so the caller must not send them.
   */
  takeOutput(sink: string, partition: number, ids: readonly MessageId[]): boolean {
    const pending = this.db.prepare('SELECT 1 FROM output_messages WHERE sink = ? AND partition = ? AND seq = ?');
    const remove = this.db.prepare('DELETE FROM output_messages WHERE sink = ? AND partition = ? AND seq = ?');
    return this.db.transaction(() => {
      const seqs = ids.map((id) => parseMessageId(id).seq);
      if (seqs.some((seq) => pending.get(sink, partition, seq) === undefined)) return false;
      for (const seq of seqs) remove.run(sink, partition, seq);
      return true;
    })();
  }

  /** Marks the oldest undelivered batch delivered; any other batch is refused (delivery is strictly in order). */
  markDelivered(sink: string, partition: number, batch: number, at = Date.now()): void {
    this.db.transaction(() => {
      const oldest = this.db
        .prepare('SELECT MIN(batch) AS batch FROM outbox WHERE sink = ? AND partition = ? AND delivered = 0')
        .get(sink, partition) as {
        batch: number | null;
      };
      if (oldest.batch !== batch) {
        throw new HarnessError(
          'FLOW_STATE_CONFLICT',
          `Batch ${batch} of sink '${sink}' partition ${partition} cannot be marked delivered: the oldest undelivered batch is ${oldest.batch ?? 'none'}; batches complete strictly in order`,
        );
      }
      this.db
        .prepare('UPDATE outbox SET delivered = 1, delivered_at = ? WHERE sink = ? AND partition = ? AND batch = ?')
        .run(at, sink, partition, batch);
    })();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
