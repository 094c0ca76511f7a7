import fc from 'fast-check';
import { formatMessageId, type MessageId } from '../domain/message-id.ts';
import type { ShardName } from '../domain/shard-name.ts';

export const arbShardName: fc.Arbitrary<ShardName> = fc
  .stringMatching(/^[A-Za-z0-9_-]{1,12}$/)
  .map((name) => name as ShardName);

export function arbShardNames(minLength: number, maxLength: number): fc.Arbitrary<ShardName[]> {
  return fc.uniqueArray(arbShardName, { minLength, maxLength });
}

/** `count` consecutive ids of one partition, as a source produces them. */
export function arbConsecutiveMessageIds(count: number): fc.Arbitrary<MessageId[]> {
  return fc
    .record({ generation: fc.nat(5), partition: fc.nat(63), start: fc.nat(1_000_000) })
    .map(({ generation, partition, start }) =>
      Array.from({ length: count }, (_, i) => formatMessageId({ generation, partition, seq: start + i })),
    );
}
