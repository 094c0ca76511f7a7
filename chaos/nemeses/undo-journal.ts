import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, realpathSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import {
  isAlive,
  selfAsOwner,
  type StartedCluster,
  statePaths,
  UNDO_JOURNAL_FILE,
} from '../../harness/cluster/index.ts';
import { describeError, HarnessError } from '../../harness/base/index.ts';
import { FaultProxyClient } from './fault-proxy-client.ts';
import { describeAction, undoAction, type UndoAction, type UndoDeps } from './undo-actions.ts';

/** The process that did an action: a pid alone could be someone else's by the time it is read. */
export interface JournalOwner {
  readonly pid: number;
  readonly startTime: string;
}

/** An action recorded and not yet closed: in force, or possibly in force (its process died mid-way). */
export interface OpenEntry {
  readonly id: string;
  readonly owner: JournalOwner;
  /** Which run did it (a run directory), for the lines a reap prints. */
  readonly scope: string;
  readonly action: UndoAction;
  readonly at: string;
}

type Line =
  | ({ readonly op: 'do' } & OpenEntry)
  | { readonly op: 'undone' | 'not-done'; readonly id: string; readonly at: string };

/** One undo and what came of it. */
export interface UndoOutcome {
  readonly entry: OpenEntry;
  /** What the undo did; undefined when it failed. */
  readonly done?: string;
  readonly error?: string;
}

const sameOwner = (a: JournalOwner, b: JournalOwner) => a.pid === b.pid && a.startTime === b.startTime;

/**
 * How long an undo waits for an action of this process still under way (each has its own
 * deadline). Below the interrupt's grace (8 s) with room for the undos themselves.
 */
export const IN_FLIGHT_WAIT_MS = 4_000;

async function settledWithin(promises: readonly Promise<unknown>[], ms: number): Promise<void> {
  const limit = new AbortController();
  await Promise.race([
    Promise.allSettled(promises),
    delay(ms, undefined, { signal: limit.signal }).catch(() => undefined),
  ]);
  limit.abort();
}

/** The journal of a cluster the harness started: in its run directory, gone with it. */
export const startedClusterJournal = (cluster: StartedCluster) => join(cluster.description.dir, UNDO_JOURNAL_FILE);

/** The journal of an attached cluster: one per cluster file (its real path), under the state directory. */
export function externalClusterJournal(clusterFile: string, base?: string): string {
  const key = createHash('sha256').update(realpathSync(clusterFile)).digest('hex').slice(0, 16);
  return join(statePaths(base).base, 'undo-journals', `external-${key}.jsonl`);
}

/**
 * What the harness did to a cluster and has not undone yet: an append-only JSONL file, each line
 * written with one `write(2)` and fsynced before the action it names is taken, so a runner killed
 * at any moment leaves a record of everything possibly still in force. Several processes may
 * append to one file (two runners on one external cluster); each undoes only its own entries
 * while it lives, and those of a dead process are leftovers (`reapLeftovers`).
 */
export class UndoJournal {
  readonly deps: UndoDeps;
  private fd: number | undefined;
  private readonly token = randomBytes(4).toString('hex');
  private count = 0;
  /** This process's entries still open. */
  private readonly open = new Map<string, OpenEntry>();
  /** Undos in progress, so two paths undoing one entry (a heal and an interrupt) act once. */
  private readonly undoing = new Map<string, Promise<UndoOutcome>>();
  /** This process's actions still being taken: an undo must not overtake one (a resume landing before its pause). */
  private readonly doing = new Map<string, Promise<unknown>>();

  constructor(
    readonly file: string,
    cluster: StartedCluster,
    readonly owner: JournalOwner = selfAsOwner(),
    proxies = new FaultProxyClient(cluster.description.toxiproxy ?? ''),
  ) {
    this.deps = { cluster, proxies };
  }

  /** Records an action about to be taken; once this returns, the record survives a crash. */
  record(scope: string, action: UndoAction): string {
    this.count += 1;
    const entry: OpenEntry = {
      id: `${this.token}-${this.count}`,
      owner: this.owner,
      scope,
      action,
      at: new Date().toISOString(),
    };
    this.append({ op: 'do', ...entry });
    this.open.set(entry.id, entry);
    return entry.id;
  }

  /** Says that the action of entry `id` is being taken until `acting` settles. */
  track(id: string, acting: Promise<unknown>): void {
    this.doing.set(id, acting);
    const settled = () => {
      if (this.doing.get(id) === acting) this.doing.delete(id);
    };
    acting.then(settled, settled);
  }

  /** Closes an entry whose action certainly did not happen (refused before it acted). */
  forget(id: string): void {
    if (!this.open.delete(id)) return;
    this.append({ op: 'not-done', id, at: new Date().toISOString() });
  }

  /** The entry `id` while it is open in this process's view; undefined once undone or forgotten. */
  openEntry(id: string): OpenEntry | undefined {
    return this.open.get(id);
  }

  /** Undoes one entry of this process (once, however many ask); undefined when it is closed already. */
  async undo(id: string): Promise<UndoOutcome | undefined> {
    const entry = this.open.get(id);
    return entry === undefined ? undefined : this.undoEntry(entry);
  }

  /** Every entry still open in the file, whoever recorded it, in the order they were recorded. */
  entries(): OpenEntry[] {
    if (!existsSync(this.file)) return [];
    const open = new Map<string, OpenEntry>();
    for (const text of readFileSync(this.file, 'utf8').split('\n')) {
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        // Only a line cut by a crash mid-write can be damaged, and its action was never taken.
        continue;
      }
      if (line.op !== 'do') open.delete(line.id);
      else {
        const { op: _op, ...entry } = line;
        open.set(entry.id, entry);
      }
    }
    return [...open.values()];
  }

  /**
   * Undoes the open entries `which` selects, last recorded first; a failure does not stop the
   * others. An action this process is still taking is waited for (up to `waitMs`): undone before
   * it landed, it would land after its undo (a pause after its resume) with its entry closed. One
   * still under way after the wait is left open, for the next start or `--reap`, and said so.
   */
  async undoOpen(which: (entry: OpenEntry) => boolean, waitMs = IN_FLIGHT_WAIT_MS): Promise<UndoOutcome[]> {
    const chosen = this.entries().filter(which);
    const underWay = chosen.flatMap((entry) => this.doing.get(entry.id) ?? []);
    if (underWay.length > 0) await settledWithin(underWay, waitMs);
    const outcomes: UndoOutcome[] = [];
    for (const group of independentRuns(chosen.reverse()))
      outcomes.push(
        ...(await Promise.all(
          group.map((entry) =>
            this.doing.has(entry.id)
              ? {
                  entry,
                  error: `still being done ${waitMs / 1000} s on; left in the journal, to be undone once it ended`,
                }
              : this.undoEntry(entry),
          ),
        )),
      );
    return outcomes;
  }

  /** What this process did and has not undone, or the part of it `which` selects. */
  undoOwn(which: (entry: OpenEntry) => boolean = () => true, waitMs?: number): Promise<UndoOutcome[]> {
    return this.undoOpen((entry) => sameOwner(entry.owner, this.owner) && which(entry), waitMs);
  }

  /** What processes that are gone did and never undid (a SIGKILLed runner); a live runner's entries are its own. */
  reapLeftovers(): Promise<UndoOutcome[]> {
    return this.undoOpen((entry) => !sameOwner(entry.owner, this.owner) && !isAlive(entry.owner));
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private undoEntry(entry: OpenEntry): Promise<UndoOutcome> {
    const running = this.undoing.get(entry.id);
    if (running !== undefined) return running;
    const undoing = (async (): Promise<UndoOutcome> => {
      try {
        const done = await undoAction(entry.action, this.deps);
        this.open.delete(entry.id);
        this.append({ op: 'undone', id: entry.id, at: new Date().toISOString() });
        return { entry, done };
      } catch (error) {
        return { entry, error: describeError(error) };
      } finally {
        this.undoing.delete(entry.id);
      }
    })();
    this.undoing.set(entry.id, undoing);
    return undoing;
  }

  private append(line: Line): void {
    if (this.fd === undefined) {
      mkdirSync(dirname(this.file), { recursive: true });
      const created = !existsSync(this.file);
      this.fd = openSync(this.file, 'a');
      // A crash mid-write leaves a line without its newline: the next line must not be glued to it.
      if (!created && !readFileSync(this.file, 'utf8').endsWith('\n')) writeSync(this.fd, '\n');
      if (created) syncDirectory(dirname(this.file));
    }
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    fsyncSync(this.fd);
  }
}

/**
 * Kinds whose undos do not depend on each other: a database dropped on one replica neither needs
 * nor hinders the drop on another. Their drops can each wait out a Keeper session (seconds) when
 * the Keeper links are down, so a run of them is undone at once instead of one after another.
 */
const INDEPENDENT_KINDS: ReadonlySet<UndoAction['kind']> = new Set(['database']);

const independent = (entry: { readonly action: UndoAction }) => INDEPENDENT_KINDS.has(entry.action.kind);

/** The entries in undo order, cut into groups: consecutive independent entries share a group, every other entry is alone. */
export function independentRuns<T extends { readonly action: UndoAction }>(entries: readonly T[]): T[][] {
  const groups: T[][] = [];
  for (const entry of entries) {
    const last = groups.at(-1);
    const head = last?.[0];
    if (last !== undefined && head !== undefined && independent(head) && independent(entry)) last.push(entry);
    else groups.push([entry]);
  }
  return groups;
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** One line per outcome, as `--reap` and the logs print them. */
export function describeOutcome({ entry, done, error }: UndoOutcome): string {
  const what = describeAction(entry.action);
  return error === undefined ? `undone: ${done} (${what}, pid ${entry.owner.pid})` : `NOT undone: ${what}: ${error}`;
}

/** Throws when any undo failed: what is still in force is named, with the way to retry. */
export function requireUndone(outcomes: readonly UndoOutcome[], journalFile: string): void {
  const failed = outcomes.filter((outcome) => outcome.error !== undefined);
  if (failed.length === 0) return;
  throw new HarnessError(
    'UNDO_FAILED',
    `${failed.map(describeOutcome).join('; ')}; it stays in the undo journal ${journalFile} for the next start or \`--reap\``,
  );
}
