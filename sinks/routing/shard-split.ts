import { dedupToken, type DedupToken } from '../domain/batch-token.ts';
import type { ShardName } from '../domain/shard-name.ts';
import type { Batch, BatchableMessage } from '../batching/batch-cutter.ts';
import type { RendezvousRouter } from './rendezvous-router.ts';
import type { RoutingKey } from './routing-key.ts';

/** One shard's part of a batch: one INSERT, under `<batch token>:<shard name>`. */
export interface ShardSubBatch<M extends BatchableMessage> {
  readonly shard: ShardName;
  readonly token: DedupToken;
  readonly messages: readonly M[];
}

/**
 * Splits a batch by rendezvous routing. Sub-batches come in canonical shard order (the order the
 * delivery loop writes them in, one after another) and keep the batch's message order. A shard
 * that receives no rows gets no sub-batch and therefore no INSERT: its token would cover nothing.
 */
export function splitBatchByShard<M extends BatchableMessage>(
  batch: Batch<M>,
  router: RendezvousRouter,
  routingKeyOf: (message: M) => RoutingKey,
): ShardSubBatch<M>[] {
  const byShard = new Map<ShardName, M[]>();
  for (const message of batch.messages) {
    const shard = router.route(routingKeyOf(message));
    const list = byShard.get(shard);
    if (list) list.push(message);
    else byShard.set(shard, [message]);
  }
  return router.shards
    .filter((shard) => byShard.has(shard))
    .map((shard) => ({ shard, token: dedupToken(batch.token, shard), messages: byShard.get(shard) ?? [] }));
}
