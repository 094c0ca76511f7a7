import type { ClusterDescription } from '../../harness/cluster/description.ts';
import type { History } from '../../harness/flow/history/history-reader.ts';
import type { GroundTruth } from '../../harness/oracle/ground-truth.ts';
import { checkRun, declaredCoverage, type CheckInput, type RunCheck } from './check-run.ts';
import type { SpecPeriod, StartExpectation } from './pipeline-system.ts';
import type { RunPlan } from './run-plan.ts';

/** What the run left to judge: its history, the ground truth, and what the executor's models derived while it ran. */
export interface ObservedRun {
  readonly history: History;
  readonly truth: GroundTruth;
  readonly system: { readonly specs: readonly SpecPeriod[]; readonly expectations: readonly StartExpectation[] };
}

/** A run's check and everything it read (stored beside the history: `npm run check` judges it again). */
export interface JudgedRun {
  readonly input: CheckInput;
  readonly check: RunCheck;
}

/** Judge: the checkers over the run's history and the ground truth, against what its plan declared. */
export function judgeRun(description: ClusterDescription, plan: RunPlan, observed: ObservedRun): JudgedRun {
  const input: CheckInput = {
    description,
    sinkClass: plan.sinkClass,
    source: plan.source,
    events: observed.history.events,
    truth: observed.truth,
    coverage: declaredCoverage(plan.scenario, plan.sinkClass, plan.input.schedule),
    specs: observed.system.specs,
    expectations: observed.system.expectations,
    serverDedupOff: plan.serverDedupOff,
    target: plan.target,
  };
  return { input, check: checkRun(input) };
}
