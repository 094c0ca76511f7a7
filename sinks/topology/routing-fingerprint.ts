import { UNSHARDED_ROUTING_FINGERPRINT, type RoutingFingerprint } from '../domain/fingerprint.ts';
import { compareShardNames, type ShardName } from '../domain/shard-name.ts';
import { CanonicalEncoder } from '../hash/canonical-encoding.ts';
import { toHex64, xxhash64 } from '../hash/xxhash64.ts';

/** What routing depends on: nothing for `host`/`hosts`; shard names and key columns for `shard_hosts`. */
export type RoutingLayout =
  | { readonly sharded: false }
  | { readonly sharded: true; readonly shards: readonly ShardName[]; readonly shardingKeyColumns: readonly string[] };

/**
 * `unsharded` for the unsharded forms; otherwise xxHash64 of the canonical encoding of
 * (`routing`, shard names sorted canonically, sharding_key_columns in spec order), as 16 hex
 * digits. Hosts are not part of it: routing and tokens never depend on them.
 */
export function routingFingerprint(layout: RoutingLayout): RoutingFingerprint {
  if (!layout.sharded) return UNSHARDED_ROUTING_FINGERPRINT;
  const encoded = new CanonicalEncoder()
    .text('routing')
    .texts([...layout.shards].sort(compareShardNames))
    .texts(layout.shardingKeyColumns)
    .finish();
  return toHex64(xxhash64(encoded)) as RoutingFingerprint;
}
