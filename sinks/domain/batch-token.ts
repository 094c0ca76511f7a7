import { SinkError } from '../errors.ts';
import type { Brand } from './brand.ts';
import { maxMessageId, type MessageId } from './message-id.ts';
import type { ShardName } from './shard-name.ts';

/** The batch token: the largest message id in the batch. It is also the batch's bound in refusals. */
export type BatchToken = Brand<MessageId, 'BatchToken'>;

/**
 * The value of `insert_deduplication_token` for one INSERT: the batch token (unsharded forms) or
 * `<batch token>:<shard name>` (the sharded class). Bound to the batch boundary and the shard
 * name, never to the rows, so a replay presents the same token with the same block.
 */
export type DedupToken = Brand<string, 'DedupToken'>;

export function batchTokenOf(messageIds: Iterable<MessageId>): BatchToken {
  const max = maxMessageId(messageIds);
  if (max === undefined)
    throw new SinkError(
      'SINK_BATCH_EMPTY',
      'An empty batch has no batch token; batches always hold at least one message',
    );
  return max as BatchToken;
}

export function dedupToken(batch: BatchToken, shard?: ShardName): DedupToken {
  return (shard === undefined ? batch : `${batch}:${shard}`) as DedupToken;
}
