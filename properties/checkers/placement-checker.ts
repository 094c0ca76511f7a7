import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import { deliveryDiff } from './delivery-diff.ts';
import type { Observations } from './observations.ts';

/** Every row sits on a shard that the routing of an INSERT which carried it names (when the form is sharded). */
export function placementChecker(observations: Observations): CheckResult {
  const misplaced = deliveryDiff(observations).misplaced.map(
    ({ id, replica, expected }) => `${id}@${replica}(expected ${expected})`,
  );
  return resultOf('placement', [anomaly('misplaced', misplaced)]);
}
