import type { InsertAttempt, InsertObserver, MessageId, SinkMessage } from '../../../sinks/index.ts';
import { HarnessError } from '../../base/index.ts';
import type { PendingOutput, StateStore } from '../store/state-store.ts';

/**
 * At-most-once ordered mode keeps an epoch's messages pending in `output_messages` (the seed's
 * words) from the epoch's commit until the INSERT that carries them is about to start. A crash
 * before that point leaves them pending and the next worker delivers them; from that point on
 * they are gone from the store, so no restart can send them a second time.
 */
export class OutputMessages {
  /** Messages this instance read as pending: the only ones it takes from the store (queue mode keeps none). */
  private readonly read = new Set<MessageId>();
  private readonly started = new Set<MessageId>();

  constructor(
    private readonly store: StateStore,
    private readonly sink: string,
    private readonly partition: number,
  ) {}

  pending(): PendingOutput[] {
    const pending = this.store.pendingOutput(this.sink, this.partition);
    for (const { messages } of pending) for (const message of messages) this.read.add(message.id);
    return pending;
  }

  /** Whether an INSERT carrying the message started since this instance was created. */
  hasStarted(message: SinkMessage): boolean {
    return this.started.has(message.id);
  }

  /**
   * Wraps the recording observer: the attempt is recorded, its crash point and gate pass, and
   * only then do its messages leave the store — the last step before the request goes out. A
   * retry of an INSERT this instance already took goes on; messages another worker took since
   * (this instance stalled and was replaced: a zombie) are refused before anything is sent.
   */
  observe(base: InsertObserver): InsertObserver {
    return {
      ...base,
      beforeInsert: async (attempt: InsertAttempt) => {
        await base.beforeInsert?.(attempt);
        const fresh = attempt.messageIds.filter((id) => this.read.has(id) && !this.started.has(id));
        if (fresh.length === 0) return;
        if (!this.store.takeOutput(this.sink, this.partition, fresh))
          throw new HarnessError(
            'FLOW_OUTPUT_FENCED',
            `Messages ${fresh[0]}… of sink '${this.sink}' partition ${this.partition} are no longer pending in output_messages: another worker took them, so this one must not send them`,
          );
        for (const id of fresh) this.started.add(id);
      },
    };
  }
}

/** The seed's ordered strategy mode (`at_most_once_strategy.enabled = false`, the default). */
export function isOrderedMode(parameters: {
  readonly at_most_once_strategy?: { readonly enabled?: boolean };
}): boolean {
  return parameters.at_most_once_strategy?.enabled !== true;
}
