/**
 * The outcome of a check, a scenario, a class or a run. `inconclusive`: nothing was violated but
 * the run did not exercise what it declared (a fault never fired, no unknown-outcome insert...);
 * `interrupted`: a signal stopped the runner before the scenario was judged; `infra-error`: the
 * harness itself failed. None of them is ever a pass.
 */
export type Verdict = 'pass' | 'violation' | 'inconclusive' | 'interrupted' | 'infra-error';

const RANK: Readonly<Record<Verdict, number>> = {
  pass: 0,
  inconclusive: 1,
  interrupted: 2,
  'infra-error': 3,
  violation: 4,
};

/** violation > infra-error > interrupted > inconclusive > pass; the merge of nothing is inconclusive (nothing was shown). */
export function mergeVerdicts(verdicts: Iterable<Verdict>): Verdict {
  let merged: Verdict | undefined;
  for (const verdict of verdicts) {
    if (merged === undefined || RANK[verdict] > RANK[merged]) merged = verdict;
  }
  return merged ?? 'inconclusive';
}
