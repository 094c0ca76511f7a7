import { isMessageId, parseMessageId } from '../../sinks/index.ts';
import { POLICIES, type DeliveryAnomaly } from './guarantee.ts';
import { anomaly, type CheckResult } from './check-result.ts';
import { deliveryDiff } from './delivery-diff.ts';
import type { Observations } from './observations.ts';

export interface DeliveryCounts {
  readonly attempted: number;
  readonly acknowledged: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly unexpected: number;
  readonly recovered: number;
  /** Acknowledged, absent, and still held undelivered by a give-up the run ended with: not lost, not delivered. */
  readonly gaveUp: number;
}

export const NO_DELIVERIES: DeliveryCounts = {
  attempted: 0,
  acknowledged: 0,
  lost: 0,
  duplicated: 0,
  unexpected: 0,
  recovered: 0,
  gaveUp: 0,
};

export interface TotalQueueResult extends CheckResult {
  readonly counts: DeliveryCounts;
  readonly lostIds: readonly string[];
  readonly duplicatedIds: readonly string[];
  readonly unexpectedIds: readonly string[];
  readonly recoveredIds: readonly string[];
  readonly gaveUpIds: readonly string[];
}

/**
 * The rows a give-up the run ended with (`final`: no later worker ran its partition) still held:
 * of its partition, from the first message of the batch (or at-least-once epoch) it gave up on,
 * and never a message of a batch the runtime marked delivered. The batches before it were
 * delivered, or should have been; their rows are not the give-up's to excuse.
 */
function heldBackByGiveUp(observations: Observations): (id: string) => boolean {
  const firstHeld = new Map<number, number>();
  for (const giveUp of observations.giveUps) {
    if (!giveUp.final) continue;
    const seqs = giveUp.messageIds.filter(isMessageId).map((id) => parseMessageId(id).seq);
    if (seqs.length === 0) continue;
    const first = Math.min(...seqs);
    firstHeld.set(giveUp.partition, Math.min(firstHeld.get(giveUp.partition) ?? first, first));
  }
  return (id) => {
    if (!isMessageId(id) || observations.deliveredIds.has(id)) return false;
    const { partition, seq } = parseMessageId(id);
    const first = firstHeld.get(partition);
    return first !== undefined && seq >= first;
  };
}

/**
 * Jepsen's total-queue view of a sink: what was attempted, acknowledged, and what ClickHouse
 * holds once healed. The count of a message is the number of its rows across all shards, each
 * shard counted once (its replicas are compared by the convergence checker):
 * - lost: acknowledged but absent;
 * - duplicated: present more than once, or accepted by the server in two INSERTs although its
 *   block dedup kept one row (`acceptedTwice`, filled for the classes that send no token);
 * - unexpected: present but never produced by the sources (or never attempted), or stored with
 *   other values than the source produced (`altered`: a row nobody wrote, under a known id);
 * - recovered: present although none of its attempts was acknowledged by ClickHouse (an
 *   unknown-outcome insert that in fact landed) — not an anomaly, evidence the case happened;
 * - gave-up: acknowledged and absent, and still held undelivered by a give-up the run ended with
 *   (`heldBackByGiveUp`): the seed stops processing there until an operator restarts, so the rows
 *   wait in the outbox or the source — not lost, not delivered (the give-up checker judges whether
 *   the give-up was allowed).
 */
export function totalQueueChecker(observations: Observations): TotalQueueResult {
  const attempted = new Set<string>();
  const confirmed = new Set<string>();
  for (const attempt of observations.attempts) {
    for (const id of attempt.messageIds) {
      attempted.add(id);
      if (attempt.outcome === 'ok') confirmed.add(id);
    }
  }
  const diff = deliveryDiff(observations);
  const present = diff.present;
  const heldBack = heldBackByGiveUp(observations);
  const lost = diff.lost.filter((id) => !heldBack(id));
  const gaveUp = diff.lost.filter(heldBack);
  const duplicated = [...new Set([...diff.duplicated, ...observations.acceptedTwice])].sort();
  const unexpected = [...present.keys()]
    .filter((id) => !observations.produced.has(id) || !attempted.has(id) || observations.altered.has(id))
    .sort();
  const recovered = [...present.keys()].filter((id) => attempted.has(id) && !confirmed.has(id)).sort();

  const policy = POLICIES[observations.guarantee];
  const byCategory: Record<DeliveryAnomaly, string[]> = { lost, duplicated, unexpected };
  const anomalies = (Object.keys(byCategory) as DeliveryAnomaly[])
    .filter((category) => !policy.allowed.has(category))
    .map((category) => anomaly(category, byCategory[category]))
    .filter((item) => item.count > 0);
  return {
    checker: 'total-queue',
    verdict: anomalies.length > 0 ? 'violation' : 'pass',
    anomalies,
    counts: {
      attempted: attempted.size,
      acknowledged: observations.acknowledged.size,
      lost: lost.length,
      duplicated: duplicated.length,
      unexpected: unexpected.length,
      recovered: recovered.length,
      gaveUp: gaveUp.length,
    },
    lostIds: lost,
    duplicatedIds: duplicated,
    unexpectedIds: unexpected,
    recoveredIds: recovered,
    gaveUpIds: gaveUp,
  };
}
