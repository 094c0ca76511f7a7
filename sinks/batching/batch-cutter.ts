import { SinkError } from '../errors.ts';
import { batchTokenOf, type BatchToken } from '../domain/batch-token.ts';
import type { MessageId } from '../domain/message-id.ts';

/** What the batcher needs of a message: its id and its size in bytes as the runtime counts it. */
export interface BatchableMessage {
  readonly id: MessageId;
  readonly byteSize: number;
}

export interface BatchLimits {
  readonly max_rows_per_batch: number;
  readonly max_bytes_per_batch: number;
}

export interface Batch<M extends BatchableMessage> {
  readonly token: BatchToken;
  readonly messages: readonly M[];
  readonly byteSize: number;
}

/**
 * Deterministic batching. A batch is flushed as soon as it REACHES `max_rows_per_batch` messages
 * or `max_bytes_per_batch` bytes (the seed: "сбрасывает накопленный батч при достижении этого
 * порога"). Because the byte limit is a maximum, a message that would push a non-empty batch past
 * it closes that batch first and starts the next one. A single message larger than the limit
 * cannot be split and must not block the partition, so it becomes a batch of its own.
 * The cut depends only on the message sequence, so a replay reproduces the same batches.
 */
export class BatchCutter<M extends BatchableMessage> {
  private pending: M[] = [];
  private pendingBytes = 0;

  constructor(private readonly limits: BatchLimits) {}

  /** Adds one message; returns the batches this closed (zero, one or two). */
  add(message: M): Batch<M>[] {
    if (!Number.isSafeInteger(message.byteSize) || message.byteSize < 0) {
      throw new SinkError(
        'SINK_BATCH_INVALID',
        `Message ${message.id} has byte size ${message.byteSize}; sizes are non-negative integers`,
      );
    }
    const closed: Batch<M>[] = [];
    if (this.pending.length > 0 && this.pendingBytes + message.byteSize > this.limits.max_bytes_per_batch) {
      closed.push(this.take());
    }
    this.pending.push(message);
    this.pendingBytes += message.byteSize;
    if (this.pending.length >= this.limits.max_rows_per_batch || this.pendingBytes >= this.limits.max_bytes_per_batch) {
      closed.push(this.take());
    }
    return closed;
  }

  /** Closes the partial batch, if any (end of input, e.g. the end of an epoch). */
  flush(): Batch<M> | undefined {
    return this.pending.length > 0 ? this.take() : undefined;
  }

  private take(): Batch<M> {
    const messages = this.pending;
    const batch = { token: batchTokenOf(messages.map((m) => m.id)), messages, byteSize: this.pendingBytes };
    this.pending = [];
    this.pendingBytes = 0;
    return batch;
  }
}

/** Cuts a whole sequence, flushing the remainder as the last batch. */
export function cutBatches<M extends BatchableMessage>(messages: Iterable<M>, limits: BatchLimits): Batch<M>[] {
  const cutter = new BatchCutter<M>(limits);
  const batches: Batch<M>[] = [];
  for (const message of messages) batches.push(...cutter.add(message));
  const rest = cutter.flush();
  if (rest) batches.push(rest);
  return batches;
}
