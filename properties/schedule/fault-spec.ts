import type { FaultType, UnknownKind } from '../../harness/flow/history/index.ts';

/**
 * When an aimed fault is healed: `insert-ended` — as soon as the INSERT it met ended, before the
 * sink acts on the outcome; `after-hold` — after the episode's hold time (it blocks the INSERT);
 * `writes-ended` — once the episode's writes ended, so the sink's retries meet it too (server
 * errors that must outlast the sink's whole retry budget).
 */
export type HealMoment = 'insert-ended' | 'after-hold' | 'writes-ended';
export const HEAL_MOMENTS: readonly HealMoment[] = ['insert-ended', 'after-hold', 'writes-ended'];

/** A fault family's parameter values: numbers, or names (a Keeper member, a scope). */
export type FaultParams = Readonly<Record<string, number | string>>;

/**
 * A fault as a schedule holds it: plain, JSON-serialisable data, before it meets anything. The
 * executor builds the aimed fault from it by its `family` (the registry in `chaos/nemeses/families/`)
 * when the gate has caught the INSERT it acts on. What the family decides is copied in, so a stored
 * schedule says what was run even after the family changed: the fault `type` the history records,
 * when it `heals`, the unknown outcome it `expects`, whether it aims at a batch's `firstAttempt`
 * only or only at an attempt `aloneOnShard`, and the `label` the schedule prints.
 */
export interface FaultSpec {
  readonly family: string;
  readonly type: FaultType;
  readonly params: FaultParams;
  readonly heals: HealMoment;
  readonly expects?: UnknownKind;
  readonly firstAttempt?: boolean;
  readonly aloneOnShard?: boolean;
  /** What it acts on, e.g. `the INSERT's link, 300ms±20`. */
  readonly label: string;
}

/** `latency(the INSERT's link, 300ms±20)`: how schedules, reports and the nemesis record name it. */
export const describeFault = (fault: FaultSpec): string => `${fault.type}(${fault.label})`;
