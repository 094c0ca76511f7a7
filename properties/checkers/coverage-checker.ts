import type { FaultType } from '../../harness/flow/history/fault-type.ts';
import type { CrashPoint } from '../../harness/flow/runtime/crash-points.ts';
import type { CheckResult } from './check-result.ts';
import type { MissedFault } from './fault-evidence.ts';

/** What a run observed happening, gathered from the stored history and ClickHouse's own logs. */
export interface Evidence {
  /** Fault type -> times it met the INSERT it was aimed at (or was witnessed on the cluster). */
  readonly faultsFired: ReadonlyMap<FaultType, number>;
  /** Faults that were armed or applied and acted on nothing, with the reason. */
  readonly faultsMissed: readonly MissedFault[];
  readonly unknownOutcomes: number;
  /** Unknown-outcome INSERTs the server finished (committed, or dropped as a duplicate). */
  readonly unknownLanded: number;
  /** Unknown-outcome INSERTs the server never finished. */
  readonly unknownAbsent: number;
  /** Attempts of a batch/epoch already attempted before that reached ClickHouse. */
  readonly replays: number;
  /** INSERTs ClickHouse deduplicated (query_log ProfileEvents DuplicatedInsertedBlocks > 0). */
  readonly dedupHits: number;
  readonly refusals: number;
  /** Topology change (the schedule's label) -> times a start under it was refused as expected. */
  readonly refusedChanges: ReadonlyMap<string, number>;
  /** Crash point -> times the sink process was killed there. */
  readonly crashes: ReadonlyMap<CrashPoint, number>;
  /** Dynamic reconfigurations that began while an INSERT was in flight. */
  readonly reconfiguredInFlight: number;
  /** Messages the at-most-once queue dropped because it was full. */
  readonly queueDrops: number;
  /** Runs whose target had ClickHouse's block dedup off (or short: `target-table.ts`). */
  readonly serverDedupOffRuns: number;
  /** Runs whose target kept ClickHouse's block dedup. */
  readonly serverDedupOnRuns: number;
  /** Token-less classes: messages the server accepted in two INSERTs (one of them maybe dropped as a duplicate). */
  readonly acceptedTwice: number;
  /** Batching classes: committed epochs cut into more than one batch. */
  readonly multiBatchEpochs: number;
  /** Give-ups whose retry on the same instance was refused (the whole path: give up, then poisoned). */
  readonly giveUps: number;
  /** Dedup tokens ClickHouse inserted more than once: a replay came after the token left the dedup window. */
  readonly windowExceeded: number;
  /** Messages the pipeline acknowledged (a committed epoch; for at-most-once a `delivered` ack). */
  readonly acknowledged: number;
  /** INSERTs the server answered UNKNOWN_STATUS_OF_INSERT (319): a quorum it could not verify. */
  readonly unknownStatus: number;
  /** Messages a dependent view holds more often than the table it reads: a replay the table dropped reached the view. */
  readonly viewReplays: number;
}

/** The "sometimes" events a scenario declares; a pass requires every one of them. */
export interface Coverage {
  readonly faults: readonly FaultType[];
  readonly unknownLanded?: boolean;
  readonly unknownAbsent?: boolean;
  readonly replay?: boolean;
  readonly dedupHit?: boolean;
  readonly refusal?: boolean;
  /** Each of these topology changes must have been refused at least once. */
  readonly refusedChanges?: readonly string[];
  readonly crashPoints?: readonly CrashPoint[];
  readonly reconfiguredInFlight?: boolean;
  readonly queueDrop?: boolean;
  /** A token-less class must run at least once without the server's block dedup, which could hide its duplicates. */
  readonly serverDedupOff?: boolean;
  /** A scenario about the table's dedup must also run once with it kept (both rows of its configuration matrix). */
  readonly serverDedupOn?: boolean;
  /** A batching class must cut an epoch into several batches, each under its own token. */
  readonly multiBatchEpoch?: boolean;
  /** The sink must give up an insert, and then refuse the retry on the same instance. */
  readonly giveUp?: boolean;
  /** A replay must arrive after its token left ClickHouse's dedup window (and be inserted again). */
  readonly windowExceeded?: boolean;
  /** The pipeline must acknowledge something: a sink that delivers nothing loses nothing it promised, and proves nothing. */
  readonly delivered?: boolean;
  /** The server must have answered an INSERT UNKNOWN_STATUS_OF_INSERT (its part in, its quorum not verified). */
  readonly unknownStatus?: boolean;
  /** A replay the table dropped as a duplicate must have reached its materialized view anyway (view dedup off). */
  readonly viewReceivedReplay?: boolean;
}

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
  if (declared.unknownLanded && evidence.unknownLanded === 0)
    missing.push('no unknown-outcome INSERT that had committed (unknown → landed)');
  if (declared.unknownAbsent && evidence.unknownAbsent === 0)
    missing.push('no unknown-outcome INSERT that never reached the server (unknown → absent)');
  if (declared.replay && evidence.replays === 0) missing.push('no replay reached ClickHouse');
  if (declared.dedupHit && evidence.dedupHits === 0) missing.push('ClickHouse deduplicated no insert');
  if (declared.refusal && evidence.refusals === 0) missing.push('the topology guard refused nothing');
  for (const change of declared.refusedChanges ?? [])
    if ((evidence.refusedChanges.get(change) ?? 0) === 0) missing.push(`no refusal under '${change}'`);
  if (declared.reconfiguredInFlight && evidence.reconfiguredInFlight === 0)
    missing.push('no reconfiguration met an INSERT in flight');
  if (declared.queueDrop && evidence.queueDrops === 0) missing.push('the at-most-once queue never overflowed');
  if (declared.multiBatchEpoch && evidence.multiBatchEpochs === 0)
    missing.push('no epoch was cut into several batches');
  if (declared.giveUp && evidence.giveUps === 0)
    missing.push('no give-up followed by a refused retry on the same instance');
  if (declared.delivered && evidence.acknowledged === 0) missing.push('the pipeline acknowledged no message');
  if (declared.windowExceeded && evidence.windowExceeded === 0)
    missing.push('no replay arrived after its token had left the dedup window');
  if (declared.serverDedupOff && evidence.serverDedupOffRuns === 0)
    missing.push("no run with the server's block dedup off (its duplicates could have been hidden)");
  if (declared.serverDedupOn && evidence.serverDedupOnRuns === 0)
    missing.push("no run with the server's block dedup kept");
  if (declared.unknownStatus && evidence.unknownStatus === 0)
    missing.push('the server answered no INSERT UNKNOWN_STATUS_OF_INSERT (no quorum left unverified)');
  if (declared.viewReceivedReplay && evidence.viewReplays === 0)
    missing.push('no replay the table dropped reached its materialized view');
  return missing;
}

export function coverageChecker(declared: Coverage, evidence: Evidence): CheckResult {
  const missing = missingCoverage(declared, evidence);
  return { checker: 'coverage', verdict: missing.length > 0 ? 'inconclusive' : 'pass', anomalies: [], notes: missing };
}
