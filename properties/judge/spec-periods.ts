import { eventsOfType, type Stamped } from '../../harness/flow/history/index.ts';
import type { RawSinkSpec } from '../arbitraries/index.ts';

/** The spec in force from a moment on (placement is judged against the spec that delivered a row). */
export interface SpecPeriod {
  readonly from: number;
  readonly spec: RawSinkSpec;
}

/** The spec in force at a moment: the latest begun by then, or the first one before any. */
export const specInForceAt = (specs: readonly SpecPeriod[], at: number): RawSinkSpec | undefined =>
  (specs.findLast((candidate) => candidate.from <= at) ?? specs[0])?.spec;

/**
 * The specs a run was in force under, read from its history alone: each worker launch's spec from
 * its launch on, and each dynamic reconfiguration (the dynamic section replaced as a whole) from
 * the moment it began to apply (`started`) or, with `applied`, from the moment every sink had
 * taken it: between the two an INSERT may run under either. Ordered by `from`; empty when no
 * worker was launched.
 */
export function specPeriods(
  events: readonly Stamped[],
  reconfiguredFrom: 'started' | 'applied' = 'started',
): SpecPeriod[] {
  const launches = eventsOfType(events, 'worker-launch').map((launch) => ({
    from: launch.at,
    spec: launch.spec as RawSinkSpec,
  }));
  const changes = eventsOfType(events, 'reconfigured').map((change) => ({
    from: reconfiguredFrom === 'started' ? change.startedAt : change.at,
    change,
  }));
  const periods: SpecPeriod[] = [];
  const moments = [
    ...launches.map((launch) => ({ from: launch.from, apply: () => launch.spec })),
    ...changes.map(({ from, change }) => ({
      from,
      apply: (last: RawSinkSpec | undefined) =>
        last === undefined ? undefined : { ...last, dynamic_parameters: { ...change.dynamic } },
    })),
  ].sort((a, b) => a.from - b.from);
  for (const moment of moments) {
    const spec = moment.apply(periods.at(-1)?.spec);
    if (spec !== undefined) periods.push({ from: moment.from, spec });
  }
  return periods;
}
