import { POLICIES } from './guarantee.ts';
import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import { deliveryDiff } from './delivery-diff.ts';
import type { Observations, ReplicaTruth } from './observations.ts';

export interface ViewCounts {
  readonly lost: number;
  readonly duplicated: number;
  readonly unexpected: number;
}

export interface ViewResult extends CheckResult {
  /** Undefined when the target has no view behind it. */
  readonly counts?: ViewCounts;
}

/** Rows per message summed over shards, each shard read on its first replica. */
const present = (replicas: readonly ReplicaTruth[]) =>
  deliveryDiff({ replicas, acknowledged: [], expectedShards: () => null }).present;

/**
 * Messages the view holds more often than the table it reads: blocks the table dropped as a
 * duplicate and the view took anyway (ClickHouse #76110), or a view that copied twice.
 */
export function viewExcess(table: readonly ReplicaTruth[], view: readonly ReplicaTruth[]): string[] {
  const source = present(table);
  return [...present(view)].filter(([id, count]) => count > (source.get(id) ?? 0)).map(([id]) => id);
}

/**
 * A materialized view behind the target must mirror what the table holds: every message the
 * table has, once each where the owed guarantee forbids duplicates, nothing the table lacks,
 * and its replicas identical. The table itself is judged by the other checkers; what it lost is
 * not the view's to lose again.
 */
export function viewChecker(observations: Observations): ViewResult {
  const view = observations.view;
  if (view === undefined) return resultOf('view', []);
  const table = present(observations.replicas);
  const held = [...table].filter(([, count]) => count > 0).map(([id]) => id);
  const diff = deliveryDiff({ replicas: view.replicas, acknowledged: held, expectedShards: () => null });
  const allowed = POLICIES[view.guarantee].allowed;
  const counts = {
    lost: diff.lost.length,
    duplicated: diff.duplicated.length,
    unexpected: diff.unacknowledged.length,
  };
  return {
    ...resultOf('view', [
      anomaly('view-lost', allowed.has('lost') ? [] : diff.lost),
      anomaly('view-duplicated', allowed.has('duplicated') ? [] : diff.duplicated),
      anomaly('view-unexpected', diff.unacknowledged),
      anomaly(
        'view-diverged',
        diff.diverged.map(({ replica, ids }) => `${replica}: ${ids.slice(0, 5).join(', ')}`),
      ),
    ]),
    counts,
  };
}
