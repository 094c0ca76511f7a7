import type { BatchingSink, BatchingSinkState, OutboxBatch, SinkContext, SinkMessage } from '../api.ts';
import { BatchCutter } from '../batching/batch-cutter.ts';
import { dedupToken, type BatchToken, type DedupToken } from '../domain/batch-token.ts';
import type { ShardName } from '../domain/shard-name.ts';
import type { SinkClassName } from '../domain/sink-class-name.ts';
import { splitBatchByShard } from '../routing/shard-split.ts';
import { DEFAULTS } from '../spec/parameter-catalog.ts';
import type { DynamicParameters, SinkSpec } from '../spec/sink-spec.ts';
import {
  checkTopologyGuard,
  UNSHARDED_TARGET,
  type TargetSlot,
  type TopologyFingerprints,
} from '../topology/topology-guard.ts';
import { SinkCore } from './sink-core.ts';
import { slotRoutingOf, type SlotRouting } from './slot-routing.ts';

/**
 * The exactly-once batching sink, both forms. `init` opens the session (the fingerprints to
 * persist need the target's metadata) and runs the topology guard; `cut` is pure; `deliver`
 * writes one outbox batch, shard by shard in canonical order, each under the batch token
 * (unsharded) or `<batch token>:<shard>`, retrying per the policy. A give-up poisons the instance.
 */
abstract class BatchingSinkBase implements BatchingSink {
  readonly kind = 'batching';
  private readonly core: SinkCore;
  private readonly routing: SlotRouting;

  protected constructor(
    readonly spec: SinkSpec,
    context: SinkContext,
    sinkClass: SinkClassName,
  ) {
    this.core = new SinkCore(spec, context, sinkClass);
    this.routing = slotRoutingOf(spec.parameters);
  }

  async init(state: BatchingSinkState): Promise<TopologyFingerprints> {
    const session = await this.core.openSession();
    const oldest = state.undelivered[0];
    const refusal = checkTopologyGuard({
      persisted: state.fingerprints,
      current: session.fingerprints,
      undelivered: oldest === undefined ? undefined : { count: state.undelivered.length, oldestBound: oldest.token },
    });
    if (refusal) {
      this.core.log.error({ kind: refusal.kind, undelivered: refusal.undelivered.count }, refusal.message);
      await this.core.close();
      throw refusal;
    }
    return session.fingerprints;
  }

  cut(messages: readonly SinkMessage[], firstBatchNumber: number): OutboxBatch[] {
    const { max_rows_per_batch, max_bytes_per_batch } = this.core.dynamic;
    const cutter = new BatchCutter<SinkMessage>({
      max_rows_per_batch: max_rows_per_batch ?? DEFAULTS.max_rows_per_batch,
      max_bytes_per_batch: max_bytes_per_batch ?? DEFAULTS.max_bytes_per_batch,
    });
    const batches = messages.flatMap((message) => cutter.add(message));
    const rest = cutter.flush();
    if (rest) batches.push(rest);
    return batches.map((batch, i) => ({ number: firstBatchNumber + i, token: batch.token, messages: batch.messages }));
  }

  async deliver(batch: OutboxBatch): Promise<void> {
    this.core.assertWritable();
    const { router } = this.routing;
    const parts = router
      ? splitBatchByShard({ ...batch, byteSize: 0 }, router, this.routing.keyOf).map((part) => ({
          slot: part.shard,
          token: this.shardToken(batch.token, part.shard),
          messages: part.messages,
        }))
      : [{ slot: UNSHARDED_TARGET as TargetSlot, token: dedupToken(batch.token), messages: batch.messages }];
    for (const part of parts) {
      await this.core.insertOrPoison({
        slot: part.slot,
        batch: batch.number,
        batchToken: batch.token,
        dedupToken: part.token,
        messages: part.messages,
      });
    }
  }

  /** `<batch token>:<shard>`: the one seam the checkers' self-test breaks (chaos/mutants). */
  protected shardToken(batchToken: BatchToken, shard: ShardName): DedupToken {
    return dedupToken(batchToken, shard);
  }

  reconfigure(dynamic: DynamicParameters): Promise<void> {
    return this.core.reconfigure(dynamic);
  }

  close(): Promise<void> {
    return this.core.close();
  }
}

/** `TClickHouseBatchingSink`: `host` / `hosts`, token = batch token. */
export class ClickHouseBatchingSink extends BatchingSinkBase {
  constructor(spec: SinkSpec, context: SinkContext) {
    super(spec, context, 'ClickHouseBatchingSink');
  }
}

/** `TShardedClickHouseBatchingSink`: `shard_hosts`, token = `<batch token>:<shard>`. */
export class ShardedClickHouseBatchingSink extends BatchingSinkBase {
  constructor(spec: SinkSpec, context: SinkContext) {
    super(spec, context, 'ShardedClickHouseBatchingSink');
  }
}
