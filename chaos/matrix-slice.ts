import { HarnessError } from '../harness/base/index.ts';
import type { JudgedClassName } from '../properties/base/index.ts';

/** One of `count` deterministic slices of the class x scenario matrix (`--shard 2/4`), 1-based. */
export interface MatrixSlice {
  readonly index: number;
  readonly count: number;
}

export function parseSlice(text: string): MatrixSlice {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index < 1 || index > count)
    throw new HarnessError('CLI_USAGE', `--shard takes I/N with 1 <= I <= N (e.g. 2/4), got '${text}'`);
  return { index, count };
}

export const formatSlice = (slice: MatrixSlice) => `${slice.index}/${slice.count}`;

/**
 * The pairs of one slice: every count-th pair of the matrix in its fixed order (classes in
 * catalogue order, each class's scenarios in catalogue order), so slices are disjoint, their
 * union is the matrix, and the heavy scenarios of one class spread over the slices.
 */
export function slicePairs<Pair>(pairs: readonly Pair[], slice: MatrixSlice | undefined): Pair[] {
  if (slice === undefined) return [...pairs];
  return pairs.filter((_, position) => position % slice.count === slice.index - 1);
}

/**
 * The class x scenario pairs of a selection, in the matrix's fixed order: each class, then each
 * selected scenario that covers it. The one definition the chaos job runs and a merge recomputes.
 */
export function matrixPairs<
  Scenario extends { readonly classes: readonly JudgedClassName[] },
  Class extends JudgedClassName = JudgedClassName,
>(
  classes: readonly Class[],
  scenarios: readonly Scenario[],
): { readonly sinkClass: Class; readonly scenario: Scenario }[] {
  return classes.flatMap((sinkClass) =>
    scenarios.filter((scenario) => scenario.classes.includes(sinkClass)).map((scenario) => ({ sinkClass, scenario })),
  );
}
