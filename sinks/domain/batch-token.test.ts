import { describe, expect, it } from 'vitest';
import { batchTokenOf, dedupToken } from './batch-token.ts';
import { messageId } from './message-id.ts';
import { shardName } from './shard-name.ts';

describe('tokens', () => {
  it('takes the largest message id as the batch token', () => {
    expect(batchTokenOf(['1-4-9', '1-4-17', '1-4-10'].map(messageId))).toBe('1-4-17');
  });

  it('refuses an empty batch', () => {
    expect(() => batchTokenOf([])).toThrow(expect.objectContaining({ code: 'SINK_BATCH_EMPTY' }));
  });

  it('uses the batch token as is when unsharded and suffixes the shard name when sharded', () => {
    const token = batchTokenOf([messageId('1-4-17')]);
    expect(dedupToken(token)).toBe('1-4-17');
    expect(dedupToken(token, shardName('a'))).toBe('1-4-17:a');
  });
});
