import type { Verdict } from '../../properties/verdict.ts';

/** What a scenario's verdict rests on: the live job knows it from its runs, `npm run check` from the stored files and record. */
export interface ScenarioFacts {
  /** A signal stopped the runner before the scenario was judged (the chaos job records the pair as `interrupted`). */
  readonly interrupted: boolean;
  /** A checked run, exploring or shrinking, was a violation. */
  readonly violated: boolean;
  /** The harness failed: an exploring run ended without a check, or the scenario could not run its runs. */
  readonly harnessFailed: boolean;
  /** The exploring runs together showed everything the scenario declared. */
  readonly covered: boolean;
  /** fast-check's backstop ended the check: a run outlived every budget. */
  readonly outlived: boolean;
}

/**
 * The one verdict rule of a scenario for one class, for the live job (`scenario-result.ts`) and
 * the re-check (`recheck.ts`) alike: an interruption stops the judging, so it comes first; then a
 * violation in any run (a broken guarantee is reported even when the harness failed elsewhere);
 * then a harness failure; otherwise the coverage the exploring runs earned together decides —
 * `pass` once everything declared happened, `inconclusive` when the budget ran out first or a run
 * outlived every budget.
 */
export function scenarioVerdict(facts: ScenarioFacts): Verdict {
  if (facts.interrupted) return 'interrupted';
  if (facts.violated) return 'violation';
  if (facts.harnessFailed) return 'infra-error';
  return facts.covered && !facts.outlived ? 'pass' : 'inconclusive';
}
