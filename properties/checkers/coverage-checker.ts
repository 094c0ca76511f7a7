import type { CheckResult } from './check-result.ts';

/** What a run observed happening, gathered from the history, the nemeses and ClickHouse's logs. */
export interface Evidence {
  /** Fault type -> times it demonstrably affected the system (not merely applied). */
  readonly faultsFired: ReadonlyMap<string, number>;
  readonly unknownOutcomes: number;
  /** Attempts of a batch/epoch already attempted before that reached ClickHouse. */
  readonly replays: number;
  /** INSERTs ClickHouse deduplicated (query_log ProfileEvents DuplicatedInsertedBlocks > 0). */
  readonly dedupHits: number;
  readonly refusals: number;
  /** Crash point -> times the sink process was killed there. */
  readonly crashes: ReadonlyMap<string, number>;
  /** Dynamic reconfigurations that began while an INSERT was in flight. */
  readonly reconfiguredInFlight: number;
  /** Messages the at-most-once queue dropped because it was full. */
  readonly queueDrops: number;
}

/** The "sometimes" events a scenario declares; a pass requires every one of them. */
export interface Coverage {
  readonly faults: readonly string[];
  readonly unknownOutcome?: boolean;
  readonly replay?: boolean;
  readonly dedupHit?: boolean;
  readonly refusal?: boolean;
  readonly crashPoints?: readonly string[];
  readonly reconfiguredInFlight?: boolean;
  readonly queueDrop?: boolean;
}

export function coverageChecker(declared: Coverage, evidence: Evidence): CheckResult {
  const missing: string[] = [];
  for (const fault of declared.faults) if ((evidence.faultsFired.get(fault) ?? 0) === 0) missing.push(`fault ${fault} never fired`);
  for (const point of declared.crashPoints ?? []) if ((evidence.crashes.get(point) ?? 0) === 0) missing.push(`no crash at ${point}`);
  if (declared.unknownOutcome && evidence.unknownOutcomes === 0) missing.push('no insert ended with an unknown outcome');
  if (declared.replay && evidence.replays === 0) missing.push('no replay reached ClickHouse');
  if (declared.dedupHit && evidence.dedupHits === 0) missing.push('ClickHouse deduplicated no insert');
  if (declared.refusal && evidence.refusals === 0) missing.push('the topology guard refused nothing');
  if (declared.reconfiguredInFlight && evidence.reconfiguredInFlight === 0) missing.push('no reconfiguration met an INSERT in flight');
  if (declared.queueDrop && evidence.queueDrops === 0) missing.push('the at-most-once queue never overflowed');
  return {
    checker: 'coverage',
    verdict: missing.length > 0 ? 'inconclusive' : 'pass',
    anomalies: [],
    notes: missing,
  };
}
