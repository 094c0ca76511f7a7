import type { ExecutedRun, ScenarioOutcome } from '../executor/run-scenario.ts';
import { scenarioResult } from '../executor/scenario-result.ts';
import type { ScenarioDefinition } from '../scenarios/scenario.ts';
import type { SinkClassName } from '../../sinks/domain/sink-class-name.ts';

/** One mutant (or the unmutated control) under one seed of its scenario. */
export interface Detection {
  readonly seed: number;
  readonly verdict: string;
  /** The mutant's category was among the counterexample's anomalies. */
  readonly caughtInCategory: boolean;
  readonly categories: readonly string[];
  /** Exploring runs up to and including the first violating one (undefined when never caught). */
  readonly runsToDetection?: number;
  /** Seconds of runs up to the end of the first violating one. */
  readonly secondsToDetection?: number;
  readonly replayCommand: string;
  readonly infraErrors: number;
}

function firstViolation(runs: readonly ExecutedRun[]): number {
  return runs.findIndex((run) => run.check?.verdict === 'violation');
}

export function detection(scenario: ScenarioDefinition, sinkClass: SinkClassName, outcome: ScenarioOutcome, seed: number, category: string | undefined): Detection {
  const result = scenarioResult(scenario, sinkClass, outcome, seed);
  const categories = [...new Set(result.anomalies.map((anomaly) => anomaly.category))];
  const first = firstViolation(outcome.runs);
  const upTo = first < 0 ? [] : outcome.runs.slice(0, first + 1);
  return {
    seed,
    verdict: result.verdict,
    caughtInCategory: result.verdict === 'violation' && category !== undefined && categories.includes(category),
    categories,
    ...(first < 0 ? {} : { runsToDetection: upTo.filter((run) => run.phase === 'explore').length, secondsToDetection: upTo.reduce((total, run) => total + run.durationMs, 0) / 1000 }),
    replayCommand: result.replayCommand,
    infraErrors: outcome.runs.filter((run) => run.infraError !== undefined).length,
  };
}
