import fc from 'fast-check';
import { pairSeed, type Seed } from '../../harness/base/index.ts';
import type { Verdict } from '../../properties/base/index.ts';
import type { Anomaly } from '../../properties/checkers/index.ts';
import { BUDGETS, shrinkStepFits, type Profile, type ServerDedupMode } from './run-budget.ts';
import { ShrinkMemo } from './shrink-memo.ts';

/** What every run of a path outside the sinks' executor (the Kafka engine, the staged loader) records. */
export interface PathRun<Input> {
  readonly index: number;
  readonly phase: 'explore' | 'shrink';
  readonly input: Input;
  /** ClickHouse's block dedup off on the run's target. */
  readonly dedupOff: boolean;
  readonly infraError?: string | undefined;
}

export interface PathLoop<Input, Run extends PathRun<Input>> {
  readonly seed: Seed;
  /** What the seed is derived for (`<class>/<scenario>`): each pair of a job draws its own inputs. */
  readonly seedKey: string;
  readonly profile: Profile;
  readonly path?: string | undefined;
  readonly arbitrary: fc.Arbitrary<Input>;
  readonly serverDedup: ServerDedupMode;
  /** Under `alternate`, whether the first run has dedup off (from the scenario's place, so a one-run job meets both). */
  readonly offFirst: boolean;
  readonly signal?: AbortSignal | undefined;
  /** False: a violation is reported as found, not shrunk. */
  readonly shrink?: boolean | undefined;
  /** One run; an infra error is caught and recorded by it, never thrown. */
  readonly run: (base: PathRun<Input>) => Promise<Run>;
  readonly violated: (run: Run) => boolean;
  /** The run's declared fault did what it declares (the scenario's coverage). */
  readonly fired: (run: Run) => boolean;
}

/** A stored run of a path judged again by today's checker: its recorded anomalies beside the rechecked ones. */
export interface PathRecheck {
  readonly phase: 'explore' | 'shrink';
  readonly fired: boolean;
  readonly infraError: boolean;
  readonly recorded: readonly Anomaly[];
  readonly rechecked: readonly Anomaly[];
}

export interface PathOutcome<Run> {
  readonly runs: readonly Run[];
  readonly stopped: 'covered' | 'budget-spent';
  /** fast-check's path to the last violating input, for the replay line. */
  readonly counterexamplePath?: string | undefined;
}

/**
 * fast-check over whole runs of one scenario: explore until the profile's minimum of runs is
 * done and a fault fired, or the budget is spent; a violation is then shrunk within the shrink
 * budget (a step starts only when it is expected to end by then), every shrink step a real run
 * with the dedup mode of the first violation, and a step identical to a case already run answered
 * as that case was (`ShrinkMemo`). A stop or an infra error ends the loop (the verdict is decided then).
 */
export async function explorePath<Input, Run extends PathRun<Input>>(
  loop: PathLoop<Input, Run>,
): Promise<PathOutcome<Run>> {
  const budget = BUDGETS[loop.profile];
  const started = Date.now();
  const runs: Run[] = [];
  let shrinkUntil: number | undefined;
  let failingRunMs = 0;
  const shrinkStepsMs: number[] = [];
  let firstDedupOff: boolean | undefined;
  let stopped: 'covered' | 'budget-spent' = 'budget-spent';
  const memo = new ShrinkMemo<Input>();
  const covered = () => runs.some((run) => run.phase === 'explore' && loop.fired(run));
  const property = fc.asyncProperty(loop.arbitrary, async (input) => {
    if (loop.signal?.aborted === true || runs.some((run) => run.infraError !== undefined)) return true;
    const explores = runs.filter((run) => run.phase === 'explore').length;
    if (shrinkUntil === undefined) {
      const enough = explores >= budget.minRuns && covered();
      if (enough) stopped = 'covered';
      if (enough || explores >= budget.maxRuns || Date.now() - started > budget.maxMs) return true;
    } else {
      const holds = memo.recall(input, firstDedupOff);
      if (holds !== undefined) return holds;
      if (!shrinkStepFits(Date.now(), shrinkUntil, failingRunMs, shrinkStepsMs)) return true;
    }
    const index = runs.length;
    const dedupOff =
      firstDedupOff ??
      (loop.serverDedup === 'off' || (loop.serverDedup === 'alternate' && (index % 2 === 0) === loop.offFirst));
    const runStarted = Date.now();
    const run = await loop.run({
      index,
      phase: shrinkUntil === undefined ? 'explore' : 'shrink',
      input,
      dedupOff,
    });
    runs.push(run);
    if (shrinkUntil !== undefined) shrinkStepsMs.push(Date.now() - runStarted);
    if (run.infraError === undefined) memo.remember(input, dedupOff, !loop.violated(run));
    if (!loop.violated(run)) return true;
    if (shrinkUntil === undefined) {
      failingRunMs = Date.now() - runStarted;
      shrinkUntil = Date.now() + (loop.shrink === false ? 0 : budget.shrinkMs);
      firstDedupOff = dedupOff;
    }
    return false;
  });
  const details = await fc.check(property, {
    seed: pairSeed(loop.seed, loop.seedKey),
    numRuns: budget.maxRuns * 50,
    ...(loop.path === undefined ? {} : { path: loop.path }),
    endOnFailure: false,
  });
  const violatedAny = runs.some(loop.violated);
  return {
    runs,
    stopped,
    ...(violatedAny && details.counterexamplePath !== null ? { counterexamplePath: details.counterexamplePath } : {}),
  };
}

/**
 * A scenario's verdict from its runs, the one rule for the live job and `npm run check`: a
 * violation anywhere is one; a run the harness could not finish makes it `infra-error`; a pass
 * needs a fault that counted (it did what its scenario declares); otherwise `inconclusive`.
 */
export function pathScenarioVerdict(
  runs: readonly {
    readonly phase: 'explore' | 'shrink';
    readonly violated: boolean;
    readonly fired: boolean;
    readonly infraError: boolean;
  }[],
  interrupted: boolean,
): Verdict {
  if (runs.some((run) => run.violated)) return 'violation';
  if (interrupted) return 'interrupted';
  const explored = runs.filter((run) => run.phase === 'explore');
  if (explored.some((run) => run.infraError)) return 'infra-error';
  return explored.some((run) => run.fired) ? 'pass' : 'inconclusive';
}
