import { describe, expect, it } from 'vitest';
import { compareShardNames, isShardName, shardName } from './shard-name.ts';

describe('ShardName', () => {
  it.each(['a', 'shard_1', 'eu-west-2', 'A9'])('accepts %j', (text) => expect(isShardName(text)).toBe(true));

  it.each(['', 'a b', 'a:b', 'ä', 'a.b', 'a/b'])('refuses %j', (text) => {
    expect(isShardName(text)).toBe(false);
    expect(() => shardName(text)).toThrow(expect.objectContaining({ code: 'SINK_SHARD_NAME_INVALID' }));
  });

  it('orders canonically', () => {
    expect(['b', 'a', 'B', '_'].map(shardName).sort(compareShardNames)).toEqual(['B', '_', 'a', 'b']);
  });
});
