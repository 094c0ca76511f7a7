/**
 * The detection matrix of `npm run mutants`: every shipped mutant against the scenario that
 * targets it, over several seeds, and the unmutated sink under the same scenarios as a control.
 * `writers/mutation-matrix.ts` turns it into the same four artifacts a chaos run has.
 */
import type { AnomalyCategory, AnomalyKind } from '../../properties/checkers/index.ts';
import type { JudgedClassName } from '../../properties/base/index.ts';

export interface Detection {
  readonly seed: number;
  readonly verdict: string;
  /** A violation in the mutant's category, and in no category its breakage does not explain (`chaos/mutants/detection.ts`). */
  readonly caughtInCategory: boolean;
  readonly categories: readonly AnomalyCategory[];
  /** Exploring runs up to and including the first violating one (absent when never caught). */
  readonly runsToDetection?: number;
  /** Seconds of runs up to the end of the first violating one. */
  readonly secondsToDetection?: number;
  /**
   * Shrinking after the first violation: steps, seconds, whether its budget cut it short, and
   * the seconds until the step that found the reported (smallest) case ended: the rest of the
   * shrink only failed to find a smaller one.
   */
  readonly shrink?: {
    readonly steps: number;
    readonly seconds: number;
    readonly truncated: boolean;
    readonly secondsToSmallest?: number;
    /** Seconds until the first shrink step that found a smaller case ended: the first smaller case a reader gets. */
    readonly secondsToFirstSmaller?: number;
  };
  readonly replayCommand: string;
  readonly infraErrors: number;
}

export interface MatrixRow {
  /** A mutant's name, or `control` for the unmutated sink. */
  readonly subject: string;
  readonly kind: 'wrapper' | 'source' | 'control';
  readonly sinkClass: JudgedClassName;
  readonly scenario: string;
  /** The anomaly category the mutant must be caught in (null for the control). */
  readonly category: AnomalyKind | null;
  readonly why: string | null;
  readonly detections: readonly Detection[];
}

export interface MutationMatrix {
  readonly runId: string;
  readonly seeds: readonly number[];
  readonly durationMs: number;
  readonly rows: readonly MatrixRow[];
  /**
   * Rows not run yet (`subject / class / scenario`): the matrix is written after each row, so a
   * long run read while it goes, or one interrupted, keeps every row it finished. Absent: none.
   */
  readonly pending?: readonly string[];
}

/** The matrix's one line: holds, a finding, or not all run yet. */
export function matrixHeadline(matrix: MutationMatrix): string {
  const pending = matrix.pending ?? [];
  if (pending.length > 0)
    return `⏳ partial: ${matrix.rows.length} of ${matrix.rows.length + pending.length} rows run${matrix.rows.every(rowHolds) ? ', each holding so far' : ', a mutant escaped or a control failed'}`;
  return matrix.rows.every(rowHolds)
    ? '✅ every mutant caught, every control clean'
    : '❌ a mutant escaped or a control failed';
}

/**
 * How one seed of a row came out: as the row requires (a mutant caught, a control passing), a
 * finding (a mutant the checkers let through or flagged for something else, a control they
 * flagged), or not verified (the run was inconclusive, a harness failure or interrupted).
 */
export function detectionOutcome(row: MatrixRow, d: Detection): 'held' | 'finding' | 'not verified' {
  if (row.kind === 'control')
    return d.verdict === 'pass' ? 'held' : d.verdict === 'violation' ? 'finding' : 'not verified';
  if (d.caughtInCategory) return 'held';
  return d.verdict === 'violation' || d.verdict === 'pass' ? 'finding' : 'not verified';
}

/** A row is good when every seed held: each caught in its category (a mutant), or passing (the control). */
export const rowHolds = (row: MatrixRow): boolean =>
  row.detections.length > 0 && row.detections.every((d) => detectionOutcome(row, d) === 'held');

/** `npm run mutants`' exit status, as the chaos job's: 0 every row held, 1 a finding, 3 otherwise not verified. */
export function matrixExitStatus(matrix: MutationMatrix): 0 | 1 | 3 {
  const outcomes = matrix.rows.flatMap((row) => row.detections.map((d) => detectionOutcome(row, d)));
  if (outcomes.includes('finding')) return 1;
  // Rows never run verified nothing.
  return matrix.rows.every(rowHolds) && (matrix.pending ?? []).length === 0 ? 0 : 3;
}
