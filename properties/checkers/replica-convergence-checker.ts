import { divergedOn } from './anomaly-category.ts';
import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import { deliveryDiff, differingIds } from './delivery-diff.ts';
import type { Observations } from './observations.ts';

/**
 * After SYSTEM SYNC REPLICA every replica of a shard must hold exactly the same rows, and the
 * `_dist` union must equal the sum over shards. A difference is a replication anomaly, reported
 * as `diverged:<replica>` with the message ids that differ.
 */
export function replicaConvergenceChecker(observations: Observations): CheckResult {
  const diff = deliveryDiff(observations);
  return resultOf('replica-convergence', [
    ...diff.diverged.map(({ replica, ids }) => anomaly(divergedOn(replica), ids)),
    anomaly('distributed-mismatch', differingIds(diff.present, observations.viaDistributed)),
  ]);
}
