import type { RoutingFingerprint, TargetFingerprint, TargetSlot, TopologyFingerprints } from '../../../sinks/index.ts';

/** Target fingerprints as a JSON object, slots sorted so equal maps store equal text. */
export function encodeTargets(targets: TopologyFingerprints['targets']): string {
  return JSON.stringify(Object.fromEntries([...targets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

export function decodeFingerprints(routing: string, targets: string): TopologyFingerprints {
  const entries = Object.entries(JSON.parse(targets) as Record<string, string>);
  return {
    routing: routing as RoutingFingerprint,
    targets: new Map(entries.map(([slot, fingerprint]) => [slot as TargetSlot, fingerprint as TargetFingerprint])),
  };
}
