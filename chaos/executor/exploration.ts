import type fc from 'fast-check';
import { CoverageLedger } from '../../properties/checkers/index.ts';
import type { ExecutedRun, ScenarioOutcome } from './executed-run.ts';
import {
  exploreDecision,
  serverDedupOff,
  type ExploreDecision,
  type RunBudget,
  type ServerDedupMode,
} from './run-budget.ts';
import type { RunInput } from './run-input.ts';

/** What the next run is: its index among the scenario's runs, exploring or shrinking, and its server-dedup setting. */
export interface RunTicket {
  readonly index: number;
  readonly phase: ExecutedRun['phase'];
  readonly serverDedupOff: boolean;
}

/** The next case fast-check offers: run it, skip it (this and every case after), or end the check (interrupted). */
export type NextRun = { readonly kind: 'run'; readonly ticket: RunTicket } | { readonly kind: 'skip' | 'end' };

export interface ExplorationOptions {
  readonly budget: RunBudget;
  readonly serverDedup: ServerDedupMode;
  /** The target keeps ClickHouse's block dedup whatever the mode (a token class, or a table that cannot lose it). */
  readonly dedupFixed: boolean;
  /** A replay of one case (`--path`): once it held, the cases after it are skipped. */
  readonly replay: boolean;
  readonly now?: () => number;
}

/**
 * The explore → shrink → replay state of one class × scenario. Exploring runs are generated
 * until the declared coverage happened or the budget is spent; the first violation starts
 * shrinking, every step under that run's server-dedup setting and within the shrink budget
 * (the cases left then are skipped: `shrinkTruncated`); a replay that held skips the rest.
 * fast-check only generates and shrinks: every decision is made here.
 */
export class Exploration {
  readonly runs: ExecutedRun[] = [];
  /** Coverage over the exploring runs that were checked (shrink steps are counted apart). */
  readonly ledger = new CoverageLedger();
  private stopped: ExploreDecision = 'run';
  /** The server-dedup setting of the first violating run: every shrink step keeps it. */
  private failingDedupOff: boolean | undefined;
  private shrinkUntil = Number.POSITIVE_INFINITY;
  private replayHeld = false;
  private shrinkTruncated = false;
  private readonly now: () => number;
  private readonly started: number;

  constructor(private readonly options: ExplorationOptions) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
  }

  next(aborted: boolean): NextRun {
    if (this.replayHeld) return { kind: 'skip' };
    // Interrupted: the check ends here (skipping every case left would take seconds of generation).
    if (aborted) return { kind: 'end' };
    if (this.failingDedupOff === undefined) {
      this.stopped = exploreDecision(this.options.budget, {
        runs: this.ledger.runs,
        elapsedMs: this.now() - this.started,
        covered: this.covered(),
      });
      if (this.stopped !== 'run') return { kind: 'skip' };
    } else if (this.now() >= this.shrinkUntil) {
      this.shrinkTruncated = true;
      return { kind: 'skip' };
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
    const held = run.check?.verdict !== 'violation';
    if (this.options.replay && this.runs.length === 1 && held) this.replayHeld = true;
    if (!held && this.failingDedupOff === undefined) {
      this.failingDedupOff = run.serverDedupOff;
      this.shrinkUntil = this.now() + this.options.budget.shrinkMs;
    }
    return held;
  }

  outcome(details: fc.RunDetails<[RunInput]>): ScenarioOutcome {
    const stopped = this.stopped !== 'run' ? this.stopped : this.covered() ? 'covered' : 'budget-spent';
    return { runs: this.runs, ledger: this.ledger, stopped, shrinkTruncated: this.shrinkTruncated, details };
  }

  private covered(): boolean {
    return this.ledger.runs > 0 && this.ledger.complete;
  }
}
