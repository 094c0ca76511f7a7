import { SinkError } from '../errors.ts';
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
  /** Each shard's half of the scored bytes, `len(name) ‖ name`, encoded once. */
  private readonly suffixes: readonly Uint8Array[];
  private readonly longestSuffix: number;

  constructor(shards: Iterable<ShardName>) {
    const sorted = [...shards].sort(compareShardNames);
    if (sorted.length === 0) throw new SinkError('SINK_ROUTING_INVALID', 'Rendezvous routing needs at least one shard');
    const duplicate = sorted.find((name, i) => i > 0 && sorted[i - 1] === name);
    if (duplicate !== undefined)
      throw new SinkError('SINK_ROUTING_INVALID', `Shard '${duplicate}' is listed twice; shard names must be unique`);
    this.shards = sorted;
    this.suffixes = sorted.map((shard) => new CanonicalEncoder().text(shard).finish());
    this.longestSuffix = Math.max(...this.suffixes.map((suffix) => suffix.byteLength));
  }

  route(key: RoutingKey): ShardName {
    // One buffer per message: `len(key) ‖ key` once, then each shard's suffix written behind it.
    const scored = new Uint8Array(4 + key.byteLength + this.longestSuffix);
    new DataView(scored.buffer).setUint32(0, key.byteLength, false);
    scored.set(key, 4);
    let best = 0;
    let bestScore = -1n;
    // Shards are visited in canonical order and only a strictly higher score wins, so a tie
    // keeps the smaller name whatever order the spec listed them in.
    this.suffixes.forEach((suffix, index) => {
      scored.set(suffix, 4 + key.byteLength);
      const score = xxhash64(scored.subarray(0, 4 + key.byteLength + suffix.byteLength));
      if (score > bestScore) {
        best = index;
        bestScore = score;
      }
    });
    return this.shards[best] as ShardName;
  }
}

/** A key's score on a shard (what `route` maximises), spelt out for tests and cross-checks. */
export function rendezvousScore(key: RoutingKey, shard: ShardName): bigint {
  return xxhash64(new CanonicalEncoder().bytes(key).text(shard).finish());
}
