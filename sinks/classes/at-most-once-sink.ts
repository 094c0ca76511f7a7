import type { AtMostOnceAck, AtMostOnceSink, SinkContext, SinkMessage } from '../api.ts';
import { parseMessageId } from '../domain/message-id.ts';
import { classifyInsertError } from '../retry/error-classification.ts';
import { InsertGaveUpError } from '../retry/insert-give-up.ts';
import { DEFAULTS } from '../spec/parameter-catalog.ts';
import type { DynamicParameters, SinkSpec } from '../spec/sink-spec.ts';
import type { TargetSlot } from '../topology/topology-guard.ts';
import { ByteBudget } from './byte-budget.ts';
import { SinkCore } from './sink-core.ts';
import { groupBySlot, slotRoutingOf, type SlotRouting } from './slot-routing.ts';

/**
 * `TAtMostOnceClickHouseSink`, both strategy modes. A failure before the INSERT started
 * (connection refused, session start) is retried per the policy; once an INSERT started, a
 * failure or an unknown outcome acks its messages with an error and they are never sent again.
 * A give-up before anything started also acks with an error (nothing is lost that the guarantee
 * promised), so this class never poisons itself and never blocks later messages.
 * - ordered (`enabled = false`): `write` delivers in order, one INSERT per shard per call;
 * - queue (`enabled = true`): `write` admits each message to a byte-bounded queue or drops it
 *   with a warning and returns; one sender per shard sends each message as its own INSERT.
 */
export class AtMostOnceClickHouseSink implements AtMostOnceSink {
  readonly kind = 'at-most-once';
  private readonly core: SinkCore;
  private readonly routing: SlotRouting;
  private readonly budget: ByteBudget;
  private readonly queues = new Map<TargetSlot, SinkMessage[]>();
  private readonly senders = new Map<TargetSlot, Promise<void>>();

  constructor(
    readonly spec: SinkSpec,
    context: SinkContext,
  ) {
    this.core = new SinkCore(spec, context, 'AtMostOnceClickHouseSink');
    this.routing = slotRoutingOf(spec.parameters);
    this.budget = new ByteBudget(
      spec.dynamic_parameters.at_most_once_strategy?.total_queue_bytes_limit ?? DEFAULTS.total_queue_bytes_limit,
    );
  }

  private get queueMode(): boolean {
    return this.spec.parameters.at_most_once_strategy?.enabled ?? false;
  }

  async write(messages: readonly SinkMessage[]): Promise<readonly AtMostOnceAck[]> {
    this.core.assertWritable();
    return this.queueMode ? messages.map((message) => this.enqueue(message)) : this.writeOrdered(messages);
  }

  async drain(): Promise<void> {
    while (this.senders.size > 0) await Promise.all(this.senders.values());
  }

  async reconfigure(dynamic: DynamicParameters): Promise<void> {
    this.budget.setLimit(dynamic.at_most_once_strategy?.total_queue_bytes_limit ?? DEFAULTS.total_queue_bytes_limit);
    await this.core.reconfigure(dynamic);
  }

  /** Queued messages not yet sent are abandoned (at-most-once allows it) and logged. */
  async close(): Promise<void> {
    const abandoned = [...this.queues.values()].reduce((sum, queue) => sum + queue.length, 0);
    for (const queue of this.queues.values()) queue.length = 0;
    if (abandoned > 0)
      this.core.log.warn({ abandoned }, 'at-most-once sink closed with queued messages; they are not sent');
    await this.core.close();
    await Promise.allSettled(this.senders.values());
  }

  private async writeOrdered(messages: readonly SinkMessage[]): Promise<AtMostOnceAck[]> {
    await this.sessionBeforeInsert();
    const acks = new Map<SinkMessage, AtMostOnceAck>();
    for (const group of groupBySlot(messages, this.routing)) {
      const ack = await this.sendOnce(group.slot, group.messages);
      for (const message of group.messages) acks.set(message, ack);
    }
    return messages.map((message) => acks.get(message) ?? 'acked-with-error');
  }

  private enqueue(message: SinkMessage): AtMostOnceAck {
    if (!this.budget.tryAdmit(message.byteSize)) {
      this.core.log.warn(
        {
          message: message.id,
          byteSize: message.byteSize,
          queuedBytes: this.budget.usedBytes,
          total_queue_bytes_limit: this.budget.limitBytes,
        },
        'at-most-once queue is full: message dropped',
      );
      return 'dropped';
    }
    const slot = this.routing.slotOf(message);
    const queue = this.queues.get(slot) ?? [];
    queue.push(message);
    this.queues.set(slot, queue);
    if (!this.senders.has(slot)) this.senders.set(slot, this.sendQueued(slot, queue));
    return 'queued';
  }

  /**
   * Sends the slot's queue until it is empty. The sender leaves the map in the same synchronous
   * step that found the queue empty, so a message enqueued afterwards always starts a new one.
   */
  private async sendQueued(slot: TargetSlot, queue: SinkMessage[]): Promise<void> {
    try {
      for (let message = queue.shift(); message !== undefined && !this.core.closed; message = queue.shift()) {
        try {
          await this.sessionBeforeInsert();
          await this.sendOnce(slot, [message]);
        } catch (error) {
          if (!this.core.closed)
            this.core.log.warn(
              { message: message.id, err: error },
              'at-most-once message not sent (write session refused or observer failed): acked with error',
            );
        } finally {
          this.budget.release(message.byteSize);
        }
      }
    } finally {
      this.senders.delete(slot);
    }
  }

  /** One INSERT that is never repeated once started: `delivered` or `acked-with-error`. */
  private async sendOnce(slot: TargetSlot, messages: readonly SinkMessage[]): Promise<AtMostOnceAck> {
    const first = messages[0];
    const batch = first === undefined ? 0 : parseMessageId(first.id).seq;
    try {
      const result = await this.core.insert({ slot, batch, messages }, { mayRetry: (report) => !report.started });
      if (result.delivered) return 'delivered';
      this.core.log.warn(
        { slot, batch, outcome: result.last.result.outcome, error: result.last.result.error?.message },
        'at-most-once INSERT started and did not succeed: acked with error, not retried',
      );
      return 'acked-with-error';
    } catch (error) {
      if (!(error instanceof InsertGaveUpError)) throw error;
      this.core.log.warn(
        { slot, batch, err: error },
        'at-most-once INSERT gave up before it started: acked with error',
      );
      return 'acked-with-error';
    }
  }

  /**
   * Session start happens before any INSERT, so a transient failure (endpoint unreachable) is
   * retried after `retry_backoff`; a refusal of the target (engine, schema, TLS) is not.
   */
  private async sessionBeforeInsert(): Promise<void> {
    for (;;) {
      try {
        await this.core.openSession();
        return;
      } catch (error) {
        if (this.core.closed || classifyInsertError(error) !== 'transient') throw error;
        this.core.log.warn(
          { err: error, delayMs: this.core.dynamic.retry_backoff },
          'write session could not start; retrying',
        );
        await this.core.wait(this.core.dynamic.retry_backoff);
      }
    }
  }
}
