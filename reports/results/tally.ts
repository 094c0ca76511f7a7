import type { FaultType } from '../../harness/flow/history/index.ts';
import { type DeliveryCounts, NO_DELIVERIES } from '../../properties/checkers/index.ts';

/**
 * Every count the reports show, for any set of runs: one run, a scenario's defining runs, a class,
 * a configuration row. Counts only (never a label), so that two tallies add up field by field.
 */
export interface Tally {
  /** Runs counted. */
  readonly runs: number;
  /** Runs whose check found a violation. */
  readonly violations: number;
  readonly counts: DeliveryCounts;
  readonly inserts: { readonly ok: number; readonly failed: number; readonly unknown: number };
  /** Unknown-outcome INSERTs settled against the servers' logs (Jepsen's recovered vs lost-if-acknowledged). */
  readonly unknownOutcomes: {
    /** The server had finished it: it committed (or was dropped as a duplicate) unanswered. */
    readonly landed: number;
    /** The server never finished it: it never arrived, or failed there. */
    readonly absent: number;
    /** Its replica was restarted later and lost the log that would tell. */
    readonly unresolved: number;
  };
  readonly replays: number;
  /** INSERTs ClickHouse dropped as duplicates: its block dedup at work. */
  readonly dedupHits: number;
  readonly refusals: number;
  /**
   * Classes without a token: how often ClickHouse's block dedup was off, and what it would have
   * hidden. Null where the runs do not alternate it (a token-sending class keeps the window).
   */
  readonly serverDedup: {
    readonly offRuns: number;
    readonly onRuns: number;
    /** Messages the server accepted in two INSERTs (a duplicate, hidden by its dedup when on). */
    readonly acceptedTwice: number;
  } | null;
  /** Times each fault type fired (sink crashes as `sink_crash`); a type that never fired is absent. */
  readonly faults: Readonly<Partial<Record<FaultType | 'sink_crash', number>>>;
  /** Inserts the sink gave up ("Giving up insert into ClickHouse"). */
  readonly giveUps: number;
  /**
   * Spec boundary -> the sink's writes under a spec on it (`SPEC_BOUNDARIES`); a boundary never run
   * is absent, and so is the whole field in a `run-result.json` written before boundaries were counted.
   */
  readonly boundaries?: Readonly<Record<string, number>>;
}

export const NO_TALLY: Tally = {
  runs: 0,
  violations: 0,
  counts: NO_DELIVERIES,
  inserts: { ok: 0, failed: 0, unknown: 0 },
  unknownOutcomes: { landed: 0, absent: 0, unresolved: 0 },
  replays: 0,
  dedupHits: 0,
  refusals: 0,
  serverDedup: null,
  faults: {},
  giveUps: 0,
  boundaries: {},
};

type Counted = number | null | undefined | { readonly [field: string]: Counted };

/** Field by field, at any depth: a field one side lacks counts as zero; null (not counted) only where both are. */
function addCounted(a: Counted, b: Counted): Counted {
  if (typeof a === 'number' || typeof b === 'number')
    return ((a as number | undefined) ?? 0) + ((b as number | undefined) ?? 0);
  if (a === null || a === undefined) return b;
  if (b === null || b === undefined) return a;
  const sum: Record<string, Counted> = {};
  for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) sum[field] = addCounted(a[field], b[field]);
  return sum;
}

/** Two tallies as one: the one sum every figure of the reports goes through. */
export const addTally = (a: Tally, b: Tally): Tally =>
  addCounted(a as unknown as Counted, b as unknown as Counted) as unknown as Tally;

export const sumTallies = (tallies: Iterable<Tally>): Tally => [...tallies].reduce(addTally, NO_TALLY);
