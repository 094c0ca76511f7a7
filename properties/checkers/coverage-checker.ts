import type { CrashPoint, FaultType } from '../../harness/flow/history/index.ts';
import type { CheckResult } from './check-result.ts';
import type { MissedFault } from './fault-evidence.ts';
import { SOMETIMES_EVENT_NAMES, SOMETIMES_EVENTS, type SometimesEventName } from './sometimes-events.ts';

/** What a run observed happening, gathered from the stored history and ClickHouse's own logs. */
export interface Evidence {
  /** Fault type -> times it met the INSERT it was aimed at (or was witnessed on the cluster). */
  readonly faultsFired: ReadonlyMap<FaultType, number>;
  /** Faults that were armed or applied and acted on nothing, with the reason. */
  readonly faultsMissed: readonly MissedFault[];
  /** Topology change (the schedule's label) -> times a start under it was refused as expected. */
  readonly refusedChanges: ReadonlyMap<string, number>;
  /** Crash point -> times the sink process was killed there. */
  readonly crashes: ReadonlyMap<CrashPoint, number>;
  /** Spec boundary -> the sink's writes (INSERT attempts, at-most-once acks) under a spec in force on it. */
  readonly boundaries: ReadonlyMap<string, number>;
  /** Times each "sometimes" event happened (`sometimes-events.ts`). */
  readonly sightings: Readonly<Record<SometimesEventName, number>>;
  /** Unknown-outcome INSERTs in all: landed, absent, or unresolved. */
  readonly unknownOutcomes: number;
  /** Token-less classes: messages the server accepted in two INSERTs (one of them maybe dropped as a duplicate). */
  readonly acceptedTwice: number;
}

/**
 * What a scenario declares must happen; a pass requires every one of it: each fault to meet an
 * INSERT, each crash point to be hit, each topology change to be refused, and each named
 * "sometimes" event declared `true` (`SOMETIMES_EVENTS`) to be seen.
 */
export type Coverage = {
  readonly faults: readonly FaultType[];
  /** Each of these topology changes must have been refused at least once. */
  readonly refusedChanges?: readonly string[];
  readonly crashPoints?: readonly CrashPoint[];
  /** Each of these spec boundaries must have had the sink write under a spec on it. */
  readonly boundaries?: readonly string[];
} & { readonly [Name in SometimesEventName]?: boolean };

/** What of the declared coverage never happened, one line each (empty: all of it happened). */
export function missingCoverage(declared: Coverage, evidence: Evidence): string[] {
  const missing: string[] = [];
  for (const fault of declared.faults) {
    if ((evidence.faultsFired.get(fault) ?? 0) > 0) continue;
    const why = evidence.faultsMissed.filter((miss) => miss.fault === fault).map((miss) => miss.reason);
    missing.push(`fault ${fault} never met an INSERT${why.length > 0 ? ` (${why.join('; ')})` : ''}`);
  }
  for (const point of declared.crashPoints ?? [])
    if ((evidence.crashes.get(point) ?? 0) === 0) missing.push(`no crash at ${point}`);
  for (const change of declared.refusedChanges ?? [])
    if ((evidence.refusedChanges.get(change) ?? 0) === 0) missing.push(`no refusal under '${change}'`);
  for (const boundary of declared.boundaries ?? [])
    if ((evidence.boundaries.get(boundary) ?? 0) === 0)
      missing.push(`the sink wrote nothing under a spec with ${boundary}`);
  for (const name of SOMETIMES_EVENT_NAMES)
    if (declared[name] === true && evidence.sightings[name] === 0) missing.push(SOMETIMES_EVENTS[name].missing);
  return missing;
}

export function coverageChecker(declared: Coverage, evidence: Evidence): CheckResult {
  const missing = missingCoverage(declared, evidence);
  return { checker: 'coverage', verdict: missing.length > 0 ? 'inconclusive' : 'pass', anomalies: [], notes: missing };
}
