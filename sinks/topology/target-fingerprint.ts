import type { TargetFingerprint } from '../domain/fingerprint.ts';
import { CanonicalEncoder } from '../hash/canonical-encoding.ts';
import { toHex64, xxhash64 } from '../hash/xxhash64.ts';

/**
 * The logical identity of one shard's target table, as far as metadata can prove it.
 * `Replicated*MergeTree`: the Keeper table (`zookeeper_name`, `zookeeper_path` from
 * `system.replicas`), so replacing a replica or changing the host list keeps the identity.
 * Plain `MergeTree` and single-host `SharedMergeTree`: nothing proves identity but the endpoint,
 * so database, table, port and hosts.
 */
export type TargetIdentity =
  | { readonly kind: 'keeper'; readonly zookeeper_name: string; readonly zookeeper_path: string }
  | {
      readonly kind: 'endpoint';
      readonly database: string;
      readonly table: string;
      readonly port: number;
      readonly hosts: readonly string[];
    };

/**
 * xxHash64 of the canonical encoding of the identity with its kind as the first field, 16 hex
 * digits. Hosts are sorted: their order only chooses where failover starts.
 */
export function targetFingerprint(identity: TargetIdentity): TargetFingerprint {
  const encoder = new CanonicalEncoder().text(identity.kind);
  if (identity.kind === 'keeper') encoder.text(identity.zookeeper_name).text(identity.zookeeper_path);
  else
    encoder
      .text(identity.database)
      .text(identity.table)
      .text(String(identity.port))
      .texts([...identity.hosts].sort());
  return toHex64(xxhash64(encoder.finish())) as TargetFingerprint;
}
