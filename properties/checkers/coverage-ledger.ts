import { missingCoverage, type Coverage, type Evidence } from './coverage-checker.ts';
import { NO_SIGHTINGS, SOMETIMES_EVENT_NAMES } from './sometimes-events.ts';

const addMaps = <K>(a: ReadonlyMap<K, number>, b: ReadonlyMap<K, number>): Map<K, number> => {
  const sum = new Map(a);
  for (const [key, n] of b) sum.set(key, (sum.get(key) ?? 0) + n);
  return sum;
};

const union = <T>(a: readonly T[] | undefined, b: readonly T[] | undefined): T[] => [
  ...new Set([...(a ?? []), ...(b ?? [])]),
];

export const NO_EVIDENCE: Evidence = {
  faultsFired: new Map(),
  faultsMissed: [],
  refusedChanges: new Map(),
  crashes: new Map(),
  boundaries: new Map(),
  sightings: NO_SIGHTINGS,
  unknownOutcomes: 0,
  acceptedTwice: 0,
};

/** Two runs' evidence as one: counts add up, reasons are kept. */
export function addEvidence(a: Evidence, b: Evidence): Evidence {
  return {
    faultsFired: addMaps(a.faultsFired, b.faultsFired),
    faultsMissed: [...a.faultsMissed, ...b.faultsMissed],
    refusedChanges: addMaps(a.refusedChanges, b.refusedChanges),
    crashes: addMaps(a.crashes, b.crashes),
    boundaries: addMaps(a.boundaries, b.boundaries),
    sightings: Object.fromEntries(
      SOMETIMES_EVENT_NAMES.map((name) => [name, a.sightings[name] + b.sightings[name]]),
    ) as Evidence['sightings'],
    unknownOutcomes: a.unknownOutcomes + b.unknownOutcomes,
    acceptedTwice: a.acceptedTwice + b.acceptedTwice,
  };
}

/** Two declarations as one: every fault, point, change and boundary of either; an event either requires. */
function addCoverage(a: Coverage, b: Coverage): Coverage {
  return {
    faults: union(a.faults, b.faults),
    crashPoints: union(a.crashPoints, b.crashPoints),
    refusedChanges: union(a.refusedChanges, b.refusedChanges),
    boundaries: union(a.boundaries, b.boundaries),
    ...Object.fromEntries(SOMETIMES_EVENT_NAMES.map((name) => [name, a[name] === true || b[name] === true])),
  };
}

/**
 * Coverage accumulated over the runs of one scenario: what they declared (the scenario's events
 * plus every fault their schedules held) against what they showed. A scenario keeps generating
 * runs until `complete`, or until its budget is spent.
 */
export class CoverageLedger {
  private declaredSoFar: Coverage = { faults: [] };
  private evidenceSoFar: Evidence = NO_EVIDENCE;
  private runCount = 0;

  add(declared: Coverage, evidence: Evidence): void {
    this.declaredSoFar = addCoverage(this.declaredSoFar, declared);
    this.evidenceSoFar = addEvidence(this.evidenceSoFar, evidence);
    this.runCount += 1;
  }

  get runs(): number {
    return this.runCount;
  }

  get declared(): Coverage {
    return this.declaredSoFar;
  }

  get evidence(): Evidence {
    return this.evidenceSoFar;
  }

  /** What never happened yet; nothing is complete before a first run. */
  missing(): string[] {
    return this.runCount === 0 ? ['no run finished'] : missingCoverage(this.declaredSoFar, this.evidenceSoFar);
  }

  get complete(): boolean {
    return this.missing().length === 0;
  }
}
