import type { ClusterDescription } from '../../harness/cluster/index.ts';
import type { History } from '../../harness/flow/history/index.ts';
import type { GroundTruth } from '../../harness/oracle/index.ts';
import { judge, type RunJudgement, type StoredRun } from '../../properties/judge/index.ts';
import type { RunPlan } from './run-plan.ts';

/** What the run left to judge: its history and the ground truth. */
export interface ObservedRun {
  readonly history: History;
  readonly truth: GroundTruth;
}

/** A run's check and everything it read (stored beside the history: `npm run check` judges it again). */
export interface JudgedRun {
  readonly input: StoredRun;
  readonly check: RunJudgement;
}

/** Judge: the run as it will be stored, through the one judgement `npm run check` applies to it later. */
export function judgeRun(description: ClusterDescription, plan: RunPlan, observed: ObservedRun): JudgedRun {
  const input: StoredRun = {
    description,
    sinkClass: plan.sinkClass,
    source: plan.source,
    events: observed.history.events,
    truth: observed.truth,
    scenarioCoverage: plan.scenario.coverage(plan.sinkClass, description),
    schedule: plan.input.schedule,
    serverDedupOff: plan.serverDedupOff,
    target: plan.target,
  };
  return { input, check: judge(input) };
}
