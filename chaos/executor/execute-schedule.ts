import type { Logger } from 'pino';
import { FlowSupervisor } from '../../harness/flow/index.ts';
import { runSchedule } from '../../properties/schedule/index.ts';
import type { RunUndo } from '../nemeses/index.ts';
import { PipelineSystem, type RunBinding } from './pipeline-system.ts';
import type { RunContext, RunPlan } from './run-plan.ts';
import type { RunWorkers } from './run-workers.ts';

/**
 * Execute: the sink workers hosted as the scenario asks, the system behind the schedule started
 * on the run's starting spec, then the schedule run on it, step by step, up to the step the sink
 * stalled in, if it did. What it launched is in `workers` as soon as it exists: whatever stops
 * the run, its cleanup closes them.
 */
export async function executeSchedule(
  context: RunContext,
  plan: RunPlan,
  binding: RunBinding,
  run: { readonly undo: RunUndo; readonly workers: RunWorkers; readonly log: Logger },
  signal: AbortSignal,
): Promise<PipelineSystem> {
  const input = plan.input;
  const supervisor = new FlowSupervisor({ dir: plan.dir, source: plan.source, log: run.log, ...context.hosting });
  run.workers.supervising(supervisor);
  const running = new PipelineSystem(supervisor, context.cluster, run.undo, input.spec, binding, run.log, signal);
  run.workers.running(running);
  await running.start();
  await runSchedule(running, input.schedule);
  return running;
}
