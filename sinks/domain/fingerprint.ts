import type { Brand } from './brand.ts';

/**
 * Fingerprint of the routing layout (sorted shard names + ordered sharding_key_columns), shown as
 * 16 lowercase hex digits, or the constant `unsharded` shared by the `host` and `hosts` forms.
 */
export type RoutingFingerprint = Brand<string, 'RoutingFingerprint'>;

/** Fingerprint of one shard's logical target table, 16 lowercase hex digits. */
export type TargetFingerprint = Brand<string, 'TargetFingerprint'>;

export const UNSHARDED_ROUTING_FINGERPRINT = 'unsharded' as RoutingFingerprint;
