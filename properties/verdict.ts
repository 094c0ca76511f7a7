/**
 * The outcome of a check, a scenario, a class or a run. `inconclusive`: nothing was violated but
 * the run did not exercise what it declared (a fault never fired, no unknown-outcome insert...);
 * `infra-error`: the harness itself failed. Neither is ever a pass.
 */
export type Verdict = 'pass' | 'violation' | 'inconclusive' | 'infra-error';

const RANK: Readonly<Record<Verdict, number>> = { pass: 0, inconclusive: 1, 'infra-error': 2, violation: 3 };

/** violation > infra-error > inconclusive > pass; the merge of nothing is inconclusive (nothing was shown). */
export function mergeVerdicts(verdicts: Iterable<Verdict>): Verdict {
  let merged: Verdict | undefined;
  for (const verdict of verdicts) {
    if (merged === undefined || RANK[verdict] > RANK[merged]) merged = verdict;
  }
  return merged ?? 'inconclusive';
}
