import type { AtLeastOnceSink, SinkContext, SinkMessage } from '../api.ts';
import type { DynamicParameters, SinkSpec } from '../spec/sink-spec.ts';
import { SinkCore } from './sink-core.ts';
import { groupBySlot, slotRoutingOf, type SlotRouting } from './slot-routing.ts';

/**
 * `TAtLeastOnceClickHouseSink`: the epoch's rows go in synchronously, one INSERT per shard (rows
 * routed by rendezvous with `shard_hosts`), no dedup token. Transient errors are retried without
 * limit, so `writeEpoch` returns only when every shard has its rows or the insert gave up; then
 * it throws, the runtime does not commit the epoch, and the instance is poisoned.
 */
export class AtLeastOnceClickHouseSink implements AtLeastOnceSink {
  readonly kind = 'at-least-once';
  private readonly core: SinkCore;
  private readonly routing: SlotRouting;

  constructor(
    readonly spec: SinkSpec,
    context: SinkContext,
  ) {
    this.core = new SinkCore(spec, context, 'AtLeastOnceClickHouseSink');
    this.routing = slotRoutingOf(spec.parameters);
  }

  async writeEpoch(epoch: number, messages: readonly SinkMessage[]): Promise<void> {
    this.core.assertWritable();
    for (const group of groupBySlot(messages, this.routing)) {
      await this.core.insertOrPoison({ slot: group.slot, batch: epoch, messages: group.messages });
    }
  }

  reconfigure(dynamic: DynamicParameters): Promise<void> {
    return this.core.reconfigure(dynamic);
  }

  close(): Promise<void> {
    return this.core.close();
  }
}
