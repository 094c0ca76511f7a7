import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import type { Observations } from './observations.ts';

/** Every row sits on the shard rendezvous hashing names for it (when the form is sharded). */
export function placementChecker(observations: Observations): CheckResult {
  const misplaced: string[] = [];
  for (const replica of observations.replicas) {
    for (const id of replica.counts.keys()) {
      const expected = observations.expectedShard(id);
      if (expected !== null && expected !== replica.shard)
        misplaced.push(`${id}@${replica.replica}(expected ${expected})`);
    }
  }
  return resultOf('placement', [anomaly('misplaced', misplaced)]);
}
