import { SinkError } from '../errors.ts';
import type { Brand } from './brand.ts';

/**
 * A shard's permanent identifier: it is part of every dedup token and of routing, so renaming a
 * shard costs as much as re-sharding. Non-empty, only `[A-Za-z0-9_-]`.
 */
export type ShardName = Brand<string, 'ShardName'>;

const shardNameForm = /^[A-Za-z0-9_-]+$/;

export function isShardName(text: string): text is ShardName {
  return shardNameForm.test(text);
}

export function shardName(text: string): ShardName {
  if (!isShardName(text)) {
    throw new SinkError(
      'SINK_SHARD_NAME_INVALID',
      `Shard name '${text}' must be non-empty and use only letters, digits, '_' and '-'`,
    );
  }
  return text;
}

/** Canonical shard order (by UTF-16 code unit, which for the allowed ASCII alphabet is byte order). */
export function compareShardNames(left: ShardName, right: ShardName): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
