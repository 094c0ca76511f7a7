import fc from 'fast-check';
import { HarnessError, pairSeed } from '../../harness/base/index.ts';
import { SINK_CLASSES } from '../../sinks/index.ts';
import type { ScenarioOutcome } from './executed-run.ts';
import { executeRun } from './execute-run.ts';
import { Exploration } from './exploration.ts';
import { arbRunInput, type RunInput } from './run-input.ts';
import { RunInFlight } from './run-in-flight.ts';
import type { ScenarioRunOptions } from './run-options.ts';
import { planRun, type RunContext } from './run-plan.ts';
import { onCluster } from './schedule-file.ts';
import { dedupMayBeOff } from './target-table.ts';

/** One case fast-check offers: run, recorded by the exploration, or skipped / ended as it decides. */
async function runCase(
  options: ScenarioRunOptions,
  exploration: Exploration,
  context: RunContext,
  inFlight: RunInFlight,
  input: RunInput,
): Promise<boolean> {
  const next = exploration.next(inFlight.signal.aborted, input);
  if (next.kind === 'end') throw new fc.PreconditionFailure(true);
  if (next.kind === 'recalled') return next.holds;
  fc.pre(next.kind === 'run');
  const run = await executeRun(context, planRun(options, input, next.ticket), inFlight.signal);
  return exploration.record(run);
}

/**
 * Runs a scenario for one class as a fast-check property over real runs, each with its own
 * database, state store and history; the `Exploration` decides which cases run (coverage is
 * earned, not left to a fixed count) and how a violation is shrunk. An interrupt stops the run
 * in flight (which undoes what it did) and ends the check; a run still going when fast-check's
 * time backstop fired is stopped the same way before this returns, and recorded as infra-error.
 */
export async function runScenario(options: ScenarioRunOptions): Promise<ScenarioOutcome> {
  // Once per scenario: a host may prepare what its workers run from in the scenario's directory.
  const hosting = options.host(options.dir);
  const context: RunContext = { cluster: options.cluster, journal: options.journal, log: options.log, hosting };
  const exploration = new Exploration({
    budget: options.budget,
    serverDedup: options.serverDedup,
    dedupFixed: !dedupMayBeOff(options.scenario.target ?? 'replicated', SINK_CLASSES[options.sinkClass].usesDedupToken),
    replay: options.path !== undefined,
  });
  const inFlight = new RunInFlight(options.signal);
  const inputs =
    options.schedule === undefined
      ? arbRunInput(options)
      : fc.constant(onCluster(options.schedule, options.cluster.description));
  const property = fc.asyncProperty(inputs, (input) =>
    inFlight.track(runCase(options, exploration, context, inFlight, input)),
  );
  const backstopMs = options.budget.maxMs + options.budget.shrinkMs + 600_000;
  const details = await fc.check(property, {
    seed: pairSeed(options.seed, `${options.sinkClass}/${options.scenario.name}`),
    ...(options.path ? { path: options.path } : {}),
    numRuns: options.schedule === undefined ? options.budget.maxRuns : 1,
    endOnFailure: false,
    // A backstop beyond the budgets (each run bounds its own waits): an interrupted check never passes.
    interruptAfterTimeLimit: backstopMs,
    markInterruptAsFailure: true,
    // Exploring stops by skipping; at most every planned run is skipped once.
    maxSkipsPerRun: 1_000,
  });
  // fast-check abandons the predicate it interrupts; the run is stopped and undone here, before the next pair.
  await inFlight.stopAbandoned(
    new HarnessError(
      'CHAOS_RUN_OUTLIVED_BUDGET',
      `a run outlived every budget (the check's backstop fired after ${backstopMs / 1000} s): it was stopped and what it did was undone before anything else ran`,
    ),
  );
  return exploration.outcome(details);
}
