import type { Profile } from '../scenarios/index.ts';

/** The job's profiles, named by the scenarios, re-exported beside their budgets. */
export type { Profile };

/**
 * How many runs a scenario may spend, per class. Runs are generated until the declared coverage
 * happened (at least `minRuns`), at most `maxRuns` or `maxMs`; a violation is then shrunk for at
 * most `shrinkMs` more (each shrink step is a full run on the cluster).
 */
export interface RunBudget {
  readonly minRuns: number;
  readonly maxRuns: number;
  readonly maxMs: number;
  readonly shrinkMs: number;
  /**
   * The factor on the size of a run's large epochs (`arbWorkload`'s `volume`): the volume a
   * profile writes comes from fuller epochs, since a run's time goes to its faults, not its rows.
   * `full`'s 8 is for the soak's 10^5 messages per class an hour: at 4, one iteration wrote
   * 76,995 at-most-once messages in 3,552 s, and 37,332 of them came from the ordered mode's 88 s.
   */
  readonly volume: number;
}

export const BUDGETS: Readonly<Record<Profile, RunBudget>> = {
  ci: { minRuns: 1, maxRuns: 4, maxMs: 120_000, shrinkMs: 60_000, volume: 3 },
  full: { minRuns: 6, maxRuns: 24, maxMs: 1_200_000, shrinkMs: 600_000, volume: 8 },
};

export type ExploreDecision = 'run' | 'covered' | 'budget-spent';

/**
 * Whether one more shrink step fits before the shrink deadline: it must be expected to end by
 * then, not merely start. A step is expected to take as long as the longest shrink step so far,
 * or before the first, as long as the failing run (a shrunk case is rarely longer than the case
 * it came from). A step started just before the deadline would otherwise hold the counterexample
 * up to one whole run past the budget the user was promised.
 */
export function shrinkStepFits(
  nowMs: number,
  deadlineMs: number,
  failingRunMs: number,
  shrinkStepsMs: readonly number[],
): boolean {
  const expected = shrinkStepsMs.length === 0 ? failingRunMs : Math.max(...shrinkStepsMs);
  return nowMs + expected < deadlineMs;
}

/**
 * Whether to generate one more exploring run: always below `minRuns` while time is left; then
 * only while something declared has not happened yet and the budget allows.
 */
export function exploreDecision(
  budget: RunBudget,
  state: { readonly runs: number; readonly elapsedMs: number; readonly covered: boolean },
): ExploreDecision {
  if (state.elapsedMs >= budget.maxMs || state.runs >= budget.maxRuns)
    return state.covered ? 'covered' : 'budget-spent';
  if (state.runs < budget.minRuns) return 'run';
  return state.covered ? 'covered' : 'run';
}

/** ClickHouse's block dedup on a token-less class's target: on, off, or off every other run (off first). */
export type ServerDedupMode = 'alternate' | 'on' | 'off';

export const SERVER_DEDUP_MODES: readonly ServerDedupMode[] = ['alternate', 'on', 'off'];

/**
 * Whether the `ordinal`-th exploring run of a token-less class gets `replicated_deduplication_window = 0`.
 * The token classes always keep the window: their token dedup lives in it.
 */
export function serverDedupOff(mode: ServerDedupMode, usesToken: boolean, ordinal: number): boolean {
  if (usesToken) return false;
  if (mode === 'alternate') return ordinal % 2 === 0;
  return mode === 'off';
}
