import fc from 'fast-check';

/** The shape of the traffic of one run; the sources derive every message from it and the seed. */
export interface Workload {
  readonly partitions: number;
  readonly messagesPerEpoch: number;
  readonly keySpace: number;
  readonly payloadBytes: { readonly min: number; readonly max: number };
}

export interface WorkloadLimits {
  readonly maxPartitions?: number;
  readonly minMessagesPerEpoch?: number;
  readonly maxMessagesPerEpoch?: number;
  /** Payloads are clamped to this (a message is about 60 bytes plus its payload). */
  readonly maxPayloadBytes?: number;
}

export function arbWorkload(limits: WorkloadLimits = {}): fc.Arbitrary<Workload> {
  const ceiling = limits.maxPayloadBytes ?? Number.POSITIVE_INFINITY;
  return fc
    .record({
      partitions: fc.integer({ min: 1, max: limits.maxPartitions ?? 2 }),
      messagesPerEpoch: fc.integer({ min: limits.minMessagesPerEpoch ?? 2, max: limits.maxMessagesPerEpoch ?? 24 }),
      keySpace: fc.integer({ min: 1, max: 32 }),
      minPayload: fc.integer({ min: 4, max: 64 }),
      spread: fc.integer({ min: 0, max: 256 }),
    })
    .map(({ minPayload, spread, ...rest }) => {
      const min = Math.min(minPayload, ceiling);
      return { ...rest, payloadBytes: { min, max: Math.min(min + spread, ceiling) } };
    });
}
