import { missingCoverage, type Coverage, type Evidence } from './coverage-checker.ts';

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
  unknownOutcomes: 0,
  unknownLanded: 0,
  unknownAbsent: 0,
  replays: 0,
  dedupHits: 0,
  refusals: 0,
  refusedChanges: new Map(),
  crashes: new Map(),
  reconfiguredInFlight: 0,
  queueDrops: 0,
  serverDedupOffRuns: 0,
  serverDedupOnRuns: 0,
  acceptedTwice: 0,
  multiBatchEpochs: 0,
  giveUps: 0,
  windowExceeded: 0,
  acknowledged: 0,
  unknownStatus: 0,
  viewReplays: 0,
};

/** Two runs' evidence as one: counts add up, reasons are kept. */
export function addEvidence(a: Evidence, b: Evidence): Evidence {
  return {
    faultsFired: addMaps(a.faultsFired, b.faultsFired),
    faultsMissed: [...a.faultsMissed, ...b.faultsMissed],
    unknownOutcomes: a.unknownOutcomes + b.unknownOutcomes,
    unknownLanded: a.unknownLanded + b.unknownLanded,
    unknownAbsent: a.unknownAbsent + b.unknownAbsent,
    replays: a.replays + b.replays,
    dedupHits: a.dedupHits + b.dedupHits,
    refusals: a.refusals + b.refusals,
    refusedChanges: addMaps(a.refusedChanges, b.refusedChanges),
    crashes: addMaps(a.crashes, b.crashes),
    reconfiguredInFlight: a.reconfiguredInFlight + b.reconfiguredInFlight,
    queueDrops: a.queueDrops + b.queueDrops,
    serverDedupOffRuns: a.serverDedupOffRuns + b.serverDedupOffRuns,
    serverDedupOnRuns: a.serverDedupOnRuns + b.serverDedupOnRuns,
    acceptedTwice: a.acceptedTwice + b.acceptedTwice,
    multiBatchEpochs: a.multiBatchEpochs + b.multiBatchEpochs,
    giveUps: a.giveUps + b.giveUps,
    windowExceeded: a.windowExceeded + b.windowExceeded,
    acknowledged: a.acknowledged + b.acknowledged,
    unknownStatus: a.unknownStatus + b.unknownStatus,
    viewReplays: a.viewReplays + b.viewReplays,
  };
}

/** Two declarations as one: every fault, point and change of either; an event either requires. */
function addCoverage(a: Coverage, b: Coverage): Coverage {
  const any = (pick: (c: Coverage) => boolean | undefined) => pick(a) === true || pick(b) === true;
  return {
    faults: union(a.faults, b.faults),
    crashPoints: union(a.crashPoints, b.crashPoints),
    refusedChanges: union(a.refusedChanges, b.refusedChanges),
    unknownLanded: any((c) => c.unknownLanded),
    unknownAbsent: any((c) => c.unknownAbsent),
    replay: any((c) => c.replay),
    dedupHit: any((c) => c.dedupHit),
    refusal: any((c) => c.refusal),
    reconfiguredInFlight: any((c) => c.reconfiguredInFlight),
    queueDrop: any((c) => c.queueDrop),
    serverDedupOff: any((c) => c.serverDedupOff),
    serverDedupOn: any((c) => c.serverDedupOn),
    multiBatchEpoch: any((c) => c.multiBatchEpoch),
    giveUp: any((c) => c.giveUp),
    windowExceeded: any((c) => c.windowExceeded),
    delivered: any((c) => c.delivered),
    unknownStatus: any((c) => c.unknownStatus),
    viewReceivedReplay: any((c) => c.viewReceivedReplay),
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
