import { CoverageLedger } from '../checkers/index.ts';
import type { Verdict } from '../base/index.ts';
import type { RunJudgement } from './judge-run.ts';

/** One run of a scenario as its judge sees it: its judgement, if it got one, and a harness failure, if it had one. */
export interface ScenarioRun {
  /** `explore`: a run of the budget; `shrink`: a step of shrinking a violation (it earns no coverage). */
  readonly phase: 'explore' | 'shrink';
  readonly judgement?: RunJudgement | undefined;
  /** The harness failed around this run (before its judgement, or undoing what it did after). */
  readonly harnessFailed: boolean;
}

/** What a scenario's verdict rests on beyond its runs: facts only the job that ran it knows (or its record keeps). */
export interface ScenarioFacts {
  /** A signal stopped the runner before the scenario was judged (the chaos job records the pair as `interrupted`). */
  readonly interrupted: boolean;
  /** The harness failed outside any run judged here (the scenario could not run its runs, or the record says so). */
  readonly harnessFailed: boolean;
  /** fast-check's backstop ended the check: a run outlived every budget. */
  readonly outlived: boolean;
}

export interface ScenarioJudgement {
  readonly verdict: Verdict;
  /** The coverage and evidence of the exploring runs that were judged. */
  readonly ledger: CoverageLedger;
}

/**
 * The one verdict rule of a scenario for one class, for the live job and the re-check alike: an
 * interruption stops the judging, so it comes first; then a violation in any run, exploring or
 * shrinking (a broken guarantee is reported even when the harness failed elsewhere); then a
 * harness failure, an exploring run's judgement that could not verify it included; otherwise the
 * coverage the exploring runs earned together decides — `pass` once everything declared
 * happened, `inconclusive` when the budget ran out first or a run outlived every budget.
 */
export function judgeScenario(runs: readonly ScenarioRun[], facts: ScenarioFacts): ScenarioJudgement {
  const ledger = new CoverageLedger();
  for (const run of runs)
    if (run.phase === 'explore' && run.judgement !== undefined)
      ledger.add(run.judgement.coverage, run.judgement.evidence);
  const explored = runs.filter((run) => run.phase === 'explore');
  const harnessFailed =
    facts.harnessFailed ||
    explored.some((run) => run.harnessFailed || run.judgement === undefined || run.judgement.verdict === 'infra-error');
  const verdict: Verdict = facts.interrupted
    ? 'interrupted'
    : runs.some((run) => run.judgement?.verdict === 'violation')
      ? 'violation'
      : harnessFailed
        ? 'infra-error'
        : ledger.complete && !facts.outlived
          ? 'pass'
          : 'inconclusive';
  return { verdict, ledger };
}
