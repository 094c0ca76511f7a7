import { HarnessError } from '../../harness/errors.ts';
import { compareShardNames, type ShardName } from '../domain/shard-name.ts';
import { CanonicalEncoder } from '../hash/canonical-encoding.ts';
import { xxhash64 } from '../hash/xxhash64.ts';
import type { RoutingKey } from './routing-key.ts';

/**
 * Rendezvous (highest-random-weight) routing over shard names. A key's score on a shard is
 * `xxHash64(len(key) ‖ key ‖ len(name) ‖ name)` with 4-byte big-endian lengths; the key goes to
 * the shard with the highest score, a tie (practically impossible) to the smaller name. Only
 * names take part, never hosts, so adding a replica or replacing a host moves nothing, and
 * adding or removing a shard moves only the keys that go to or came from that shard.
 */
export class RendezvousRouter {
  readonly shards: readonly ShardName[];

  constructor(shards: Iterable<ShardName>) {
    const sorted = [...shards].sort(compareShardNames);
    if (sorted.length === 0) throw new HarnessError('SINK_ROUTING_INVALID', 'Rendezvous routing needs at least one shard');
    const duplicate = sorted.find((name, i) => i > 0 && sorted[i - 1] === name);
    if (duplicate !== undefined) throw new HarnessError('SINK_ROUTING_INVALID', `Shard '${duplicate}' is listed twice; shard names must be unique`);
    this.shards = sorted;
  }

  route(key: RoutingKey): ShardName {
    let best: ShardName | undefined;
    let bestScore = -1n;
    // Shards are visited in canonical order and only a strictly higher score wins, so a tie
    // keeps the smaller name whatever order the spec listed them in.
    for (const shard of this.shards) {
      const score = rendezvousScore(key, shard);
      if (score > bestScore) {
        best = shard;
        bestScore = score;
      }
    }
    return best as ShardName;
  }
}

export function rendezvousScore(key: RoutingKey, shard: ShardName): bigint {
  return xxhash64(new CanonicalEncoder().bytes(key).text(shard).finish());
}
