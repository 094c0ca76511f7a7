import { type Stamped } from '../../harness/flow/history/index.ts';
import { meetsBoundary, SPEC_BOUNDARIES } from '../arbitraries/index.ts';
import type { SpecPeriod } from './spec-periods.ts';

/** What the sink does when it writes: an INSERT attempt, or at-most-once's acks of an epoch (a dropped message included). */
const WRITES = new Set(['insert-invoke', 'acks']);

/**
 * Spec boundary -> the sink's writes made while a spec on it was in force, read from the history
 * alone (the specs each launch and reconfiguration put in force, `specPeriods`), so a boundary
 * counts as run only when the sink worked under it, whatever the schedule meant to do.
 */
export function boundaryWrites(events: readonly Stamped[], specs: readonly SpecPeriod[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) {
    if (!WRITES.has(event.type)) continue;
    const spec = specs.findLast((period) => period.from <= event.at)?.spec;
    if (spec === undefined) continue;
    for (const boundary of SPEC_BOUNDARIES)
      if (meetsBoundary(spec, boundary)) counts.set(boundary, (counts.get(boundary) ?? 0) + 1);
  }
  return counts;
}
