import type fc from 'fast-check';
import { anomalyKind, CoverageLedger, type AnomalyKind } from '../../properties/checkers/index.ts';
import type { ExecutedRun, ScenarioOutcome } from './executed-run.ts';
import {
  exploreDecision,
  serverDedupOff,
  shrinkStepFits,
  type ExploreDecision,
  type RunBudget,
  type ServerDedupMode,
} from './run-budget.ts';
import type { RunInput } from './run-input.ts';
import { ShrinkMemo } from './shrink-memo.ts';

/** What the next run is: its index among the scenario's runs, exploring or shrinking, and its server-dedup setting. */
export interface RunTicket {
  readonly index: number;
  readonly phase: ExecutedRun['phase'];
  readonly serverDedupOff: boolean;
}

/**
 * The next case fast-check offers: run it, skip it (this and every case after), end the check
 * (interrupted), or answer it as before (a shrink step identical to a case already run).
 */
export type NextRun =
  | { readonly kind: 'run'; readonly ticket: RunTicket }
  | { readonly kind: 'skip' | 'end' }
  | { readonly kind: 'recalled'; readonly holds: boolean };

export interface ExplorationOptions {
  readonly budget: RunBudget;
  readonly serverDedup: ServerDedupMode;
  /** The target keeps ClickHouse's block dedup whatever the mode (a token class, or a table that cannot lose it). */
  readonly dedupFixed: boolean;
  /** A replay of one case (`--path`): once it held, the cases after it are skipped. */
  readonly replay: boolean;
  readonly now?: () => number;
}

/** The kinds of anomaly a violating run showed (a `diverged:<replica>` counts as `diverged`). */
export function failureKinds(run: ExecutedRun): ReadonlySet<AnomalyKind> {
  return new Set(run.check?.results.flatMap((result) => result.anomalies.map((a) => anomalyKind(a.category))) ?? []);
}

/**
 * The explore → shrink → replay state of one class × scenario. Exploring runs are generated
 * until the declared coverage happened, the budget is spent or a run failed in the harness (no
 * run after it on that cluster is worth a verdict); the first violation starts
 * shrinking, every step under that run's server-dedup setting and expected to end within the
 * shrink budget (the cases left then are skipped: `shrinkTruncated`); a replay that held skips the rest.
 * Shrinking keeps the failure it found: a smaller case is taken only when it shows every kind
 * of anomaly the first violation showed. One that fails otherwise has slipped to another
 * failure; it stays a violation of the scenario but is not taken as the counterexample, so
 * shrinking cannot trade the bug it found for a different one. A shrink step identical to a case
 * already run (`ShrinkMemo`) is answered as that case was, without a run.
 * fast-check only generates and shrinks: every decision is made here.
 */
export class Exploration {
  readonly runs: ExecutedRun[] = [];
  /** Coverage over the exploring runs that were checked (shrink steps are counted apart). */
  readonly ledger = new CoverageLedger();
  private stopped: ExploreDecision = 'run';
  /** The server-dedup setting of the first violating run: every shrink step keeps it. */
  private failingDedupOff: boolean | undefined;
  /** The anomaly kinds of the first violation: every counterexample taken while shrinking shows them all. */
  private failure: ReadonlySet<AnomalyKind> = new Set();
  /** The runs fast-check was told failed, in order: the last is the reported counterexample. */
  private readonly failing: number[] = [];
  private shrinkUntil = Number.POSITIVE_INFINITY;
  private replayHeld = false;
  private shrinkTruncated = false;
  private readonly memo = new ShrinkMemo<RunInput>();
  private readonly now: () => number;
  private readonly started: number;

  constructor(private readonly options: ExplorationOptions) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
  }

  next(aborted: boolean, input: RunInput): NextRun {
    if (this.replayHeld) return { kind: 'skip' };
    // Interrupted: the check ends here (skipping every case left would take seconds of generation).
    if (aborted) return { kind: 'end' };
    // A run the harness could not finish left the cluster in a state nobody judged: the pair is an
    // infra-error already (no later run can make it pass), and a later run there could only add a
    // verdict that state caused. The job gives the next pair a fresh cluster, when it started this one.
    if (this.runs.some((run) => run.infraError !== undefined)) {
      if (this.failingDedupOff !== undefined) this.shrinkTruncated = true;
      return { kind: 'skip' };
    }
    if (this.failingDedupOff === undefined) {
      this.stopped = exploreDecision(this.options.budget, {
        runs: this.ledger.runs,
        elapsedMs: this.now() - this.started,
        covered: this.covered(),
      });
      if (this.stopped !== 'run') return { kind: 'skip' };
    } else {
      const holds = this.memo.recall(input, this.failingDedupOff);
      if (holds !== undefined) return { kind: 'recalled', holds };
      if (!this.shrinkStepFits()) {
        this.shrinkTruncated = true;
        return { kind: 'skip' };
      }
    }
    const ordinal = this.runs.filter((run) => run.phase === 'explore').length;
    return {
      kind: 'run',
      ticket: {
        index: this.runs.length,
        phase: this.failingDedupOff === undefined ? 'explore' : 'shrink',
        serverDedupOff:
          this.failingDedupOff ?? serverDedupOff(this.options.serverDedup, this.options.dedupFixed, ordinal),
      },
    };
  }

  /** Takes a run's result; whether it held (a violation fails fast-check's property, which shrinks it). */
  record(run: ExecutedRun): boolean {
    this.runs.push(run);
    if (run.phase === 'explore' && run.check !== undefined) this.ledger.add(run.check.coverage, run.check.evidence);
    const violated = run.check?.verdict === 'violation';
    if (this.options.replay && this.runs.length === 1 && !violated) this.replayHeld = true;
    if (violated && this.failingDedupOff === undefined) {
      this.failingDedupOff = run.serverDedupOff;
      this.failure = failureKinds(run);
      this.shrinkUntil = this.now() + this.options.budget.shrinkMs;
    }
    const sameFailure = violated && [...this.failure].every((kind) => failureKinds(run).has(kind));
    if (sameFailure) this.failing.push(run.index);
    if (run.check !== undefined) this.memo.remember(run.input, run.serverDedupOff, !sameFailure);
    return !sameFailure;
  }

  outcome(details: fc.RunDetails<[RunInput]>): ScenarioOutcome {
    const stopped = this.stopped !== 'run' ? this.stopped : this.covered() ? 'covered' : 'budget-spent';
    return {
      runs: this.runs,
      ledger: this.ledger,
      stopped,
      shrinkTruncated: this.shrinkTruncated,
      counterexample: this.failing.at(-1),
      firstShrunk: this.failing[1],
      details,
    };
  }

  private shrinkStepFits(): boolean {
    const failing = this.runs.find((run) => run.check?.verdict === 'violation');
    const steps = this.runs.filter((run) => run.phase === 'shrink').map((run) => run.durationMs);
    return shrinkStepFits(this.now(), this.shrinkUntil, failing?.durationMs ?? 0, steps);
  }

  private covered(): boolean {
    return this.ledger.runs > 0 && this.ledger.complete;
  }
}
