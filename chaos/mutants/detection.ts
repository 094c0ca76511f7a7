import { type AnomalyCategory, anomalyKind, type AnomalyKind } from '../../properties/checkers/index.ts';
import type { Verdict } from '../../properties/base/index.ts';
import type { SinkClassName } from '../../sinks/index.ts';
import type { Detection } from '../../reports/results/index.ts';
import { type ScenarioOutcome, scenarioReport } from '../executor/index.ts';
import { findScenarios, type ScenarioDefinition } from '../scenarios/index.ts';
import { MUTANTS, type MutantName } from './catalogue.ts';
import type { Seed } from '../../harness/base/index.ts';

/**
 * The categories a mutant's counterexample may show beside its own, each because its breakage
 * causes it too. Any other category is a checker reporting what the mutant did not do: the
 * mutant is not caught, it is a finding.
 */
export const ALSO_CAUGHT_IN: Readonly<
  Partial<Record<MutantName, { readonly kinds: readonly AnomalyKind[]; readonly why: string }>>
> = {
  'token-changes-on-replay': {
    kinds: ['token-not-as-owed'],
    why: 'the replay carries a salted token, which is not the batch bound the class owes',
  },
  'shard-suffix-dropped': {
    kinds: ['lost'],
    why: "when a batch has rows for both shard names on the one table, the second name's INSERT carries the first's token and is dropped as its duplicate",
  },
  'epoch-bound-as-batch-token': {
    kinds: ['token-not-as-owed', 'token-covers-two-row-sets'],
    why: 'every batch of an epoch carries the epoch bound: not the batch bound owed, and one token over several batches of rows',
  },
  'utf16-length-as-byte-length': {
    kinds: ['lost'],
    why: "a length prefix shorter than the string's bytes shifts the rest of the RowBinary body: the server reads the tail of one value as the next row's fields, so produced ids vanish under garbled ones (and a body cut off mid-row is refused, CANNOT_READ_ALL_DATA, until the sink stops)",
  },
  'fresh-token-after-two-unknowns': {
    kinds: ['token-not-as-owed'],
    why: 'the retries after the second unknown outcome carry the fresh token, which is not the batch bound the class owes',
  },
  'routing-fingerprint-with-hosts': {
    kinds: ['lost'],
    why: 'a partition refused without cause keeps its undelivered batches: their rows are missing when the run ends',
  },
};

/**
 * Caught means: the scenario's verdict is `violation`, the mutant's own category is among the
 * counterexample's, and every other category is one its breakage explains (`ALSO_CAUGHT_IN`).
 */
export function caughtInCategory(
  mutant: MutantName,
  verdict: Verdict,
  categories: readonly AnomalyCategory[],
): boolean {
  const own = MUTANTS[mutant].category;
  const explained = new Set<AnomalyKind>([own, ...(ALSO_CAUGHT_IN[mutant]?.kinds ?? [])]);
  const kinds = categories.map(anomalyKind);
  return verdict === 'violation' && kinds.includes(own) && kinds.every((kind) => explained.has(kind));
}

/**
 * The line that re-runs one seed of a matrix row: the chaos CLI runs only the real sinks and
 * knows only the catalogue's scenarios, so a mutant's seed, path and dedup setting go to the
 * mutants CLI, and so does a control's at a target of its own (`controlOf`: the mutant whose
 * target it is); a control at a catalogue scenario keeps the chaos line.
 */
export function replayLine(
  chaosReplay: string,
  scenario: ScenarioDefinition,
  subject: { readonly mutant: MutantName } | { readonly controlOf: MutantName },
): string {
  const run = chaosReplay.slice(chaosReplay.indexOf(' --seed '));
  if ('mutant' in subject) return `npm run mutants -- --mutant ${subject.mutant} --seeds 1 --no-control${run}`;
  if (inCatalogue(scenario)) return chaosReplay;
  return `npm run mutants -- --mutant ${subject.controlOf} --seeds 1 --control-only${run}`;
}

function inCatalogue(scenario: ScenarioDefinition): boolean {
  try {
    return findScenarios([scenario.name])[0] === scenario;
  } catch {
    return false;
  }
}

/** The seconds a stretch of runs took. */
const seconds = (runs: readonly { readonly durationMs: number }[]): number =>
  runs.reduce((total, run) => total + run.durationMs, 0) / 1000;

/**
 * The shrinking after the first violation (at `first` in the runs): its steps and seconds,
 * whether the budget cut it short, the seconds until the step that found the reported
 * counterexample ended (0 when no smaller case failed the same way), and until the first step
 * that found a smaller case at all ended (absent when none did).
 */
export function shrinkFigures(
  outcome: Pick<ScenarioOutcome, 'runs' | 'counterexample' | 'firstShrunk' | 'shrinkTruncated'>,
  first: number,
): NonNullable<Detection['shrink']> {
  const smallest = Math.max(first, outcome.counterexample ?? first);
  const until = (index: number) => seconds(outcome.runs.slice(first + 1, index + 1));
  return {
    steps: outcome.runs.length - first - 1,
    seconds: seconds(outcome.runs.slice(first + 1)),
    truncated: outcome.shrinkTruncated,
    secondsToSmallest: until(smallest),
    ...(outcome.firstShrunk === undefined ? {} : { secondsToFirstSmaller: until(outcome.firstShrunk) }),
  };
}

/** What one seed of a scenario showed about a mutant (or the control, `mutant` undefined): caught how, after how much, shrunk how. */
export function detection(
  scenario: ScenarioDefinition,
  sinkClass: SinkClassName,
  outcome: ScenarioOutcome,
  seed: Seed,
  mutant: MutantName | undefined,
  controlOf?: MutantName,
): Detection {
  const result = scenarioReport(scenario, sinkClass, outcome, seed);
  const categories = [...new Set(result.anomalies.map((anomaly) => anomaly.category))];
  const first = outcome.runs.findIndex((run) => run.check?.verdict === 'violation');
  const found =
    first < 0
      ? {}
      : {
          runsToDetection: outcome.runs.slice(0, first + 1).filter((run) => run.phase === 'explore').length,
          secondsToDetection: seconds(outcome.runs.slice(0, first + 1)),
          shrink: shrinkFigures(outcome, first),
        };
  return {
    seed,
    verdict: result.verdict,
    caughtInCategory: mutant !== undefined && caughtInCategory(mutant, result.verdict, categories),
    categories,
    ...found,
    replayCommand:
      mutant !== undefined
        ? replayLine(result.replayCommand, scenario, { mutant })
        : controlOf !== undefined
          ? replayLine(result.replayCommand, scenario, { controlOf })
          : result.replayCommand,
    infraErrors: outcome.runs.filter((run) => run.infraError !== undefined).length,
  };
}
