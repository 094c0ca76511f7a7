import fc from 'fast-check';
import { TYPED_COLUMN_NAMES } from '../../harness/flow/index.ts';

/** The shape of the traffic of one run; the sources derive every message from it and the seed. */
export interface Workload {
  readonly partitions: number;
  readonly messagesPerEpoch: number;
  readonly keySpace: number;
  readonly payloadBytes: { readonly min: number; readonly max: number };
  /**
   * Columns of the seed's type mapping the rows carry beside the fixed ones (`typed-columns.ts`):
   * all of them (but in a scenario that asks for none), so every type meets every scenario.
   */
  readonly typedColumns: readonly string[];
}

export interface WorkloadLimits {
  readonly maxPartitions?: number;
  readonly minMessagesPerEpoch?: number;
  readonly maxMessagesPerEpoch?: number;
  /** Payloads are clamped to this (a message is about 60 bytes plus its payload). */
  readonly maxPayloadBytes?: number;
  /** Without the typed columns (about 500 bytes more per message): a scenario whose limits are sized for small messages. */
  readonly untyped?: boolean;
}

/** The most partitions a workload writes at once: four in some runs, each its own worker's writer. */
export const MAX_PARTITIONS = 4;

/** Epochs of a few messages, the cases a shrink ends at. */
const SMALL_EPOCH = { min: 2, max: 24 } as const;
/** Epochs of a volume where a loss of one in thousands can show: most runs write these. */
export const LARGE_EPOCH = { min: 24, max: 64 } as const;

/**
 * Messages per epoch and partition: one run in four small, the rest large, so a `ci` job writes
 * thousands of rows per class; shrinking crosses to the small ones. A scenario with its own
 * limits keeps them.
 */
function arbEpochSize(limits: WorkloadLimits): fc.Arbitrary<number> {
  if (limits.minMessagesPerEpoch !== undefined || limits.maxMessagesPerEpoch !== undefined)
    return fc.integer({
      min: limits.minMessagesPerEpoch ?? SMALL_EPOCH.min,
      max: limits.maxMessagesPerEpoch ?? SMALL_EPOCH.max,
    });
  return fc.oneof(
    { withCrossShrink: true },
    { arbitrary: fc.integer(SMALL_EPOCH), weight: 1 },
    { arbitrary: fc.integer(LARGE_EPOCH), weight: 3 },
  );
}

export function arbWorkload(limits: WorkloadLimits = {}): fc.Arbitrary<Workload> {
  const ceiling = limits.maxPayloadBytes ?? Number.POSITIVE_INFINITY;
  return fc
    .record({
      partitions: fc.integer({ min: 1, max: limits.maxPartitions ?? MAX_PARTITIONS }),
      messagesPerEpoch: arbEpochSize(limits),
      keySpace: fc.integer({ min: 1, max: 32 }),
      minPayload: fc.integer({ min: 4, max: 64 }),
      spread: fc.integer({ min: 0, max: 256 }),
      typedColumns: limits.untyped === true ? fc.constant<readonly string[]>([]) : arbTypedColumns,
    })
    .map(({ minPayload, spread, ...rest }) => {
      const min = Math.min(minPayload, ceiling);
      return { ...rest, payloadBytes: { min, max: Math.min(min + spread, ceiling) } };
    });
}

/**
 * Every typed column, always: keyed specs may name them as sharding keys (`KEY_COLUMN_SETS`), so
 * a workload without them would refuse a spec drawn beside it. Shrinking keeps them.
 */
const arbTypedColumns: fc.Arbitrary<readonly string[]> = fc.constant(TYPED_COLUMN_NAMES);
