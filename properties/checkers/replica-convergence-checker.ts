import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import type { Observations } from './observations.ts';

/**
 * After SYSTEM SYNC REPLICA every replica of a shard must hold exactly the same rows, and the
 * `_dist` union must equal the sum over shards. A difference is a replication anomaly, reported
 * as `diverged:<replica>` with the message ids that differ.
 */
export function replicaConvergenceChecker(observations: Observations): CheckResult {
  const anomalies = [];
  const reference = new Map<string, ReadonlyMap<string, number>>();
  for (const replica of observations.replicas) {
    const first = reference.get(replica.shard);
    if (first === undefined) {
      reference.set(replica.shard, replica.counts);
      continue;
    }
    anomalies.push(anomaly(`diverged:${replica.replica}`, differences(first, replica.counts)));
  }
  const summed = new Map<string, number>();
  for (const counts of reference.values())
    for (const [id, count] of counts) summed.set(id, (summed.get(id) ?? 0) + count);
  anomalies.push(anomaly('distributed-mismatch', differences(summed, observations.viaDistributed)));
  return resultOf('replica-convergence', anomalies);
}

function differences(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): string[] {
  const ids = new Set([...a.keys(), ...b.keys()]);
  return [...ids].filter((id) => (a.get(id) ?? 0) !== (b.get(id) ?? 0)).sort();
}
