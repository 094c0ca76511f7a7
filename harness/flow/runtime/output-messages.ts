import type { InsertAttempt, InsertObserver, SinkMessage } from '../../../sinks/api.ts';
import type { MessageId } from '../../../sinks/domain/message-id.ts';
import type { PendingOutput, StateStore } from '../store/state-store.ts';

/**
 * At-most-once ordered mode keeps an epoch's messages pending in `output_messages` (the seed's
 * words) from the epoch's commit until the INSERT that carries them is about to start. A crash
 * before that point leaves them pending and the next worker delivers them; from that point on
 * they are gone from the store, so no restart can send them a second time.
 */
export class OutputMessages {
  private readonly started = new Set<MessageId>();

  constructor(
    private readonly store: StateStore,
    private readonly sink: string,
    private readonly partition: number,
  ) {}

  pending(): PendingOutput[] {
    return this.store.pendingOutput(this.sink, this.partition);
  }

  /** Whether an INSERT carrying the message started since this instance was created. */
  hasStarted(message: SinkMessage): boolean {
    return this.started.has(message.id);
  }

  /**
   * Wraps the recording observer: the attempt is recorded, its crash point and gate pass, and
   * only then do its messages leave the store — the last step before the request goes out.
   */
  observe(base: InsertObserver): InsertObserver {
    return {
      ...base,
      beforeInsert: async (attempt: InsertAttempt) => {
        await base.beforeInsert?.(attempt);
        this.store.startOutput(this.sink, this.partition, attempt.messageIds);
        for (const id of attempt.messageIds) this.started.add(id);
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
