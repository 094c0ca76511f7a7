import fc from 'fast-check';
import { TYPED_COLUMN_NAMES } from '../../harness/flow/index.ts';
import { KEY_COLUMN_SETS } from './arb-sink-spec.ts';

/** The shape of the traffic of one run; the sources derive every message from it and the seed. */
export interface Workload {
  readonly partitions: number;
  readonly messagesPerEpoch: number;
  readonly keySpace: number;
  readonly payloadBytes: { readonly min: number; readonly max: number };
  /**
   * Columns of the seed's type mapping the rows carry beside the fixed ones (`typed-columns.ts`),
   * a drawn selection (none in a scenario that asks for none); the table holds the others too,
   * which the server fills.
   */
  readonly typedColumns: readonly string[];
  /** The table's column order: 0 the stream's, otherwise a permutation's seed (`SourceConfig.tableShuffle`). */
  readonly tableShuffle: number;
}

export interface WorkloadLimits {
  readonly maxPartitions?: number;
  readonly minMessagesPerEpoch?: number;
  readonly maxMessagesPerEpoch?: number;
  /** Payloads are clamped to this (a message is about 60 bytes plus its payload). */
  readonly maxPayloadBytes?: number;
  /** Without the typed columns (about 500 bytes more per message): a scenario whose limits are sized for small messages. */
  readonly untyped?: boolean;
  /**
   * The factor on the size of the large epochs (a profile's volume, `RunBudget.volume`; default 1).
   * The small epochs, the cases a shrink ends at, and a scenario's own epoch limits keep their size.
   */
  readonly volume?: number;
  /** The table always declares its columns in a drawn order, never the stream's. */
  readonly shuffledTable?: boolean;
}

/** The most partitions a workload writes at once: four in some runs, each its own worker's writer. */
export const MAX_PARTITIONS = 4;

/** Epochs of a few messages, the cases a shrink ends at. */
const SMALL_EPOCH = { min: 2, max: 24 } as const;
/** Epochs of a volume where a loss of one in thousands can show: most runs write these, at a volume of 1. */
export const LARGE_EPOCH = { min: 24, max: 64 } as const;

/** The large epochs at a volume: both bounds scaled, so a higher volume never draws a smaller epoch. */
export function largeEpoch(volume: number): { min: number; max: number } {
  if (!Number.isInteger(volume) || volume < 1)
    throw new RangeError(`a workload's volume is a whole factor of 1 or more, got ${volume}`);
  return { min: LARGE_EPOCH.min * volume, max: LARGE_EPOCH.max * volume };
}

/**
 * Messages per epoch and partition: one run in eight small, the rest large, so that at the `ci`
 * volume a job writes at least 5,000 messages per class on nine seeds in ten (held by
 * `run-input.test.ts`); shrinking crosses to the small ones. The boundaries of one row per batch
 * and of small epochs are met on purpose (`server-errors`, `live-reconfigure`), not by this draw.
 * A scenario with its own limits keeps them.
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
    { arbitrary: fc.integer(largeEpoch(limits.volume ?? 1)), weight: 7 },
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
      tableShuffle: limits.shuffledTable === true ? arbPermutationSeed : arbTableShuffle,
    })
    .map(({ minPayload, spread, ...rest }) => {
      const min = Math.min(minPayload, ceiling);
      return { ...rest, payloadBytes: { min, max: Math.min(min + spread, ceiling) } };
    });
}

/** Typed columns a keyed spec may name as its sharding key (`KEY_COLUMN_SETS`): a stream always writes them. */
export const KEY_TYPED_COLUMNS: readonly string[] = TYPED_COLUMN_NAMES.filter((name) =>
  KEY_COLUMN_SETS.some((set) => set.includes(name)),
);

/**
 * The typed columns a stream writes: the key columns always (a keyed spec drawn beside the
 * workload may name them), each other column in three runs of four, so that every type meets
 * every scenario in most runs and the table has columns the stream leaves to the server.
 * Shrinks towards the key columns alone.
 */
const arbTypedColumns: fc.Arbitrary<readonly string[]> = fc
  .tuple(
    ...TYPED_COLUMN_NAMES.map((name) =>
      KEY_TYPED_COLUMNS.includes(name)
        ? fc.constant(true)
        : fc.oneof(
            { withCrossShrink: true },
            { arbitrary: fc.constant(false), weight: 1 },
            { arbitrary: fc.constant(true), weight: 3 },
          ),
    ),
  )
  .map((written) => TYPED_COLUMN_NAMES.filter((_, i) => written[i]));

const arbPermutationSeed = fc.integer({ min: 1, max: 0x7fff_ffff });

/** The table's order: one run in four the stream's, the rest a drawn permutation; shrinks to the stream's. */
const arbTableShuffle: fc.Arbitrary<number> = fc.oneof(
  { withCrossShrink: true },
  { arbitrary: fc.constant(0), weight: 1 },
  { arbitrary: arbPermutationSeed, weight: 3 },
);
