import { anomalyKind, type AnomalyKind } from '../../properties/checkers/anomaly-category.ts';
import type { SinkClassName } from '../../sinks/domain/sink-class-name.ts';
import type { Detection } from '../../reports/mutation-matrix.ts';
import type { ScenarioOutcome } from '../executor/run-scenario.ts';
import { scenarioResult } from '../executor/scenario-result.ts';
import type { ScenarioDefinition } from '../scenarios/scenario.ts';

/** What one seed of a scenario showed about a mutant (or the control): caught where, after how much, shrunk how. */
export function detection(
  scenario: ScenarioDefinition,
  sinkClass: SinkClassName,
  outcome: ScenarioOutcome,
  seed: number,
  category: AnomalyKind | undefined,
): Detection {
  const result = scenarioResult(scenario, sinkClass, outcome, seed);
  const categories = [...new Set(result.anomalies.map((anomaly) => anomaly.category))];
  const first = outcome.runs.findIndex((run) => run.check?.verdict === 'violation');
  const seconds = (runs: typeof outcome.runs) => runs.reduce((total, run) => total + run.durationMs, 0) / 1000;
  const found =
    first < 0
      ? {}
      : {
          runsToDetection: outcome.runs.slice(0, first + 1).filter((run) => run.phase === 'explore').length,
          secondsToDetection: seconds(outcome.runs.slice(0, first + 1)),
          shrink: {
            steps: outcome.runs.length - first - 1,
            seconds: seconds(outcome.runs.slice(first + 1)),
            truncated: outcome.shrinkTruncated,
          },
        };
  return {
    seed,
    verdict: result.verdict,
    caughtInCategory:
      result.verdict === 'violation' && category !== undefined && categories.map(anomalyKind).includes(category),
    categories,
    ...found,
    replayCommand: result.replayCommand,
    infraErrors: outcome.runs.filter((run) => run.infraError !== undefined).length,
  };
}
