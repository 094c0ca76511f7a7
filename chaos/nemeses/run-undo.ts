import { setTimeout as delay } from 'node:timers/promises';
import { describeError, HarnessError } from '../../harness/base/index.ts';
import { describeAction, type UndoAction, type UndoDeps } from './undo-actions.ts';
import {
  IN_FLIGHT_WAIT_MS,
  independentRuns,
  requireUndone,
  type UndoJournal,
  type UndoOutcome,
} from './undo-journal.ts';

/**
 * Everything one run did to the cluster (its database, every fault of every episode), recorded
 * in the cluster's undo journal before it is done. `stop` ends the run's ability to act and
 * undoes whatever is still in force, last first: the run's faults, then its database.
 */
export class RunUndo {
  private readonly ids: string[] = [];
  /** Actions under way, by journal entry (or by a key of their own, for work `during` tracks). */
  private readonly acting = new Map<string, Promise<unknown>>();
  private works = 0;
  private stopped: string | undefined;

  constructor(
    readonly journal: UndoJournal,
    /** The run's directory: which run an entry came from, when a reap prints it. */
    readonly scope: string,
  ) {}

  get deps(): UndoDeps {
    return this.journal.deps;
  }

  /** An undo list of one fault, inside this run's. */
  fault(): FaultUndo {
    return new FaultUndo(this);
  }

  /**
   * Records `action`, then takes it with `act`. An act refused in a way that proves it did
   * nothing (`didNothing`, e.g. a name already taken) closes its record unused, so its undo can
   * never touch what someone else made.
   */
  async do(action: UndoAction, act: () => Promise<unknown>, didNothing?: (error: unknown) => boolean): Promise<void> {
    await this.perform(this.begin(action), act, didNothing);
  }

  /** Records an action about to be taken; once the run is stopped, nothing more is. */
  begin(action: UndoAction): string {
    if (this.stopped !== undefined)
      throw new HarnessError(
        'CHAOS_RUN_STOPPED',
        `${describeAction(action)} was not done: the run was stopped (${this.stopped})`,
      );
    const id = this.journal.record(this.scope, action);
    this.ids.push(id);
    return id;
  }

  async perform(id: string, act: () => Promise<unknown>, didNothing?: (error: unknown) => boolean): Promise<void> {
    const acting = act();
    this.acting.set(id, acting);
    this.journal.track(id, acting);
    try {
      await acting;
    } catch (error) {
      if (didNothing?.(error) === true) this.journal.forget(id);
      throw error;
    } finally {
      this.acting.delete(id);
    }
  }

  /**
   * Work on what the run created that its undo must not race (tables being created in the run's
   * database while a stop drops it): a stop waits for it like for an action under way.
   */
  async during<T>(work: () => Promise<T>): Promise<T> {
    if (this.stopped !== undefined)
      throw new HarnessError('CHAOS_RUN_STOPPED', `the run was stopped (${this.stopped}) before its tables were made`);
    const key = `work-${(this.works += 1)}`;
    const running = work();
    this.acting.set(key, running);
    try {
      return await running;
    } finally {
      this.acting.delete(key);
    }
  }

  /**
   * Undoes the given entries, last first, each failure tried once more (undos are idempotent, and
   * an owner's command or the fault proxy can fail once for a passing reason); throws naming every
   * one that stays in force.
   */
  async undo(ids: readonly string[]): Promise<void> {
    const outcomes: UndoOutcome[] = [];
    const open = [...ids].reverse().flatMap((id) => this.journal.openEntry(id) ?? []);
    for (const group of independentRuns(open))
      for (const failed of await Promise.all(group.map(({ id }) => this.undoTwice(id))))
        if (failed !== undefined) outcomes.push(failed);
    requireUndone(outcomes, this.journal.file);
  }

  /** Undoes one entry, once more if it failed; the outcome of a second failure, else undefined. */
  private async undoTwice(id: string): Promise<UndoOutcome | undefined> {
    const outcome = await this.journal.undo(id);
    if (outcome?.error === undefined) return undefined;
    return this.journal.undo(id);
  }

  /**
   * Ends the run: nothing more is taken, actions under way are waited for (a request in flight
   * may still land), and everything the run did that is still in force is undone. An action
   * still under way after the wait stays in the journal, never guessed done.
   */
  async stop(reason: string): Promise<void> {
    this.stopped ??= reason;
    const limit = new AbortController();
    await Promise.race([
      Promise.allSettled([...this.acting.values()]),
      delay(IN_FLIGHT_WAIT_MS, undefined, { signal: limit.signal }).catch(() => undefined),
    ]);
    limit.abort();
    const hung = this.ids.filter((id) => this.acting.has(id));
    await this.undo(this.ids.filter((id) => !hung.includes(id)));
    if (hung.length > 0)
      throw new HarnessError(
        'UNDO_ACTION_HUNG',
        `${hung.length} action(s) of the run were still under way ${IN_FLIGHT_WAIT_MS / 1000} s after it stopped; they stay in the undo journal ${this.journal.file} for the next start or \`--reap\``,
      );
  }
}

/** What one fault did, undone by its heal (and by its own apply when that fails half-way). */
export class FaultUndo {
  private readonly ids: string[] = [];
  private readonly acting = new Set<Promise<void>>();
  /** Set when the apply failed: its other branches (one per replica) take nothing more. */
  private failed = false;

  constructor(private readonly run: RunUndo) {}

  get deps(): UndoDeps {
    return this.run.deps;
  }

  /**
   * Records `action`, then takes it. A failed act may have half-happened, so it is undone with the
   * rest, unless it was refused in a way that proves it did nothing (`didNothing`).
   */
  async do(action: UndoAction, act: () => Promise<unknown>, didNothing?: (error: unknown) => boolean): Promise<void> {
    if (this.failed)
      throw new HarnessError('FAULT_APPLY_FAILED', `${describeAction(action)} was not done: the fault's apply failed`);
    const id = this.run.begin(action);
    this.ids.push(id);
    const performing = this.run.perform(id, act, didNothing);
    this.acting.add(performing);
    try {
      await performing;
    } finally {
      this.acting.delete(performing);
    }
  }

  /**
   * Runs an apply; when it fails, its branches still under way are waited for (a change in
   * flight may still land), then what it did is undone before the error goes on.
   */
  async applying<T>(apply: () => Promise<T>): Promise<T> {
    try {
      return await apply();
    } catch (error) {
      this.failed = true;
      await Promise.allSettled([...this.acting]);
      try {
        await this.undo();
      } catch (undoError) {
        throw new HarnessError(
          'FAULT_APPLY_FAILED',
          `${describeError(error)}; undoing what it did also failed: ${describeError(undoError)}`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** Undoes everything this fault did, last first; safe to call twice. */
  undo(): Promise<void> {
    return this.run.undo(this.ids);
  }
}
