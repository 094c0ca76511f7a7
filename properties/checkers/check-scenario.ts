import { mergeVerdicts, type Verdict } from '../base/index.ts';
import { asyncInsertChecker } from './async-insert-checker.ts';
import type { CheckResult } from './check-result.ts';
import { coverageChecker, type Coverage, type Evidence } from './coverage-checker.ts';
import { giveUpChecker } from './give-up-checker.ts';
import { livenessChecker } from './liveness-checker.ts';
import type { Observations } from './observations.ts';
import { outcomeChecker } from './outcome-checker.ts';
import { placementChecker } from './placement-checker.ts';
import { refusalChecker } from './refusal-checker.ts';
import { serverLogChecker } from './server-log-checker.ts';
import { sinkContractChecker } from './sink-contract-checker.ts';
import { replicaConvergenceChecker } from './replica-convergence-checker.ts';
import { tokenChecker } from './token-checker.ts';
import { totalQueueChecker, type DeliveryCounts } from './total-queue-checker.ts';
import { viewChecker, type ViewCounts } from './view-checker.ts';

export interface ScenarioCheck {
  readonly verdict: Verdict;
  readonly counts: DeliveryCounts;
  /** What the view behind the target lost and duplicated, when there is one. */
  readonly viewCounts?: ViewCounts;
  readonly results: readonly CheckResult[];
}

/**
 * Every checker over one scenario's observations. A violation anywhere wins; otherwise missing
 * coverage makes the scenario inconclusive: a pass must be earned by the declared events.
 */
export function checkScenario(observations: Observations, coverage: Coverage, evidence: Evidence): ScenarioCheck {
  const totalQueue = totalQueueChecker(observations);
  const view = viewChecker(observations);
  const results: CheckResult[] = [
    totalQueue,
    replicaConvergenceChecker(observations),
    placementChecker(observations),
    tokenChecker(observations),
    asyncInsertChecker(observations),
    outcomeChecker(observations),
    serverLogChecker(observations),
    refusalChecker(observations),
    giveUpChecker(observations),
    sinkContractChecker(observations),
    livenessChecker(observations),
    view,
    coverageChecker(coverage, evidence),
  ];
  return {
    verdict: mergeVerdicts(results.map((result) => result.verdict)),
    counts: totalQueue.counts,
    ...(view.counts === undefined ? {} : { viewCounts: view.counts }),
    results,
  };
}
