import fc from 'fast-check';

/** The shape of the traffic of one run; the sources derive every message from it and the seed. */
export interface Workload {
  readonly partitions: number;
  readonly messagesPerEpoch: number;
  readonly keySpace: number;
  readonly payloadBytes: { readonly min: number; readonly max: number };
}

export function arbWorkload(limits: { maxPartitions?: number; maxMessagesPerEpoch?: number } = {}): fc.Arbitrary<Workload> {
  return fc
    .record({
      partitions: fc.integer({ min: 1, max: limits.maxPartitions ?? 2 }),
      messagesPerEpoch: fc.integer({ min: 2, max: limits.maxMessagesPerEpoch ?? 24 }),
      keySpace: fc.integer({ min: 1, max: 32 }),
      minPayload: fc.integer({ min: 4, max: 64 }),
      spread: fc.integer({ min: 0, max: 256 }),
    })
    .map(({ minPayload, spread, ...rest }) => ({ ...rest, payloadBytes: { min: minPayload, max: minPayload + spread } }));
}
