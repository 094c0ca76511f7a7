import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutBatches } from '../batching/batch-cutter.ts';
import { formatMessageId, messageId, type MessageId } from '../domain/message-id.ts';
import { shardName } from '../domain/shard-name.ts';
import { arbShardNames } from './arb-routing.ts';
import { RendezvousRouter } from './rendezvous-router.ts';
import { routingKeyFor, type Row } from './routing-key.ts';
import { splitBatchByShard } from './shard-split.ts';

interface RowMessage {
  readonly id: MessageId;
  readonly byteSize: number;
  readonly row: Row;
}

const byUser = (m: RowMessage) => routingKeyFor(m.id, m.row, ['user_id']);
const arbRowMessages = fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 60 }).map((users) =>
  users.map((user, seq): RowMessage => ({
    id: formatMessageId({ generation: 1, partition: 2, seq }),
    byteSize: 10,
    row: { user_id: user },
  })),
);

describe('splitBatchByShard', () => {
  it('suffixes the batch token with the shard name and omits shards without rows', () => {
    const messages: RowMessage[] = [{ id: messageId('1-4-17'), byteSize: 1, row: { user_id: 7 } }];
    const [batch] = cutBatches(messages, { max_rows_per_batch: 10, max_bytes_per_batch: 100 });
    const router = new RendezvousRouter(['a', 'b'].map(shardName));
    const parts = splitBatchByShard(batch!, router, byUser);
    expect(parts).toHaveLength(1);
    expect(parts[0]?.token).toBe(`1-4-17:${parts[0]?.shard}`);
  });

  it('sends every message to its routed shard once, in canonical shard order and batch order', () => {
    fc.assert(
      fc.property(arbShardNames(1, 6), arbRowMessages, (shards, messages) => {
        const router = new RendezvousRouter(shards);
        const [batch] = cutBatches(messages, { max_rows_per_batch: 2000, max_bytes_per_batch: 10_000 });
        const parts = splitBatchByShard(batch!, router, byUser);
        expect(parts.map((p) => p.shard)).toEqual([...parts.map((p) => p.shard)].sort());
        for (const part of parts) {
          expect(part.messages.length).toBeGreaterThan(0);
          expect(part.token).toBe(`${batch!.token}:${part.shard}`);
          for (const m of part.messages) expect(router.route(byUser(m))).toBe(part.shard);
        }
        const delivered = parts.flatMap((p) => p.messages);
        expect([...delivered].sort((x, y) => messages.indexOf(x) - messages.indexOf(y))).toEqual(messages);
        for (const part of parts) expect(part.messages).toEqual(messages.filter((m) => part.messages.includes(m)));
      }),
    );
  });

  it('co-locates rows with the same sharding key', () => {
    fc.assert(
      fc.property(arbShardNames(2, 6), arbRowMessages, (shards, messages) => {
        const [batch] = cutBatches(messages, { max_rows_per_batch: 2000, max_bytes_per_batch: 10_000 });
        const shardOfUser = new Map<unknown, string>();
        for (const part of splitBatchByShard(batch!, new RendezvousRouter(shards), byUser)) {
          for (const m of part.messages) {
            expect(shardOfUser.get(m.row.user_id) ?? part.shard).toBe(part.shard);
            shardOfUser.set(m.row.user_id, part.shard);
          }
        }
      }),
    );
  });
});
