/**
 * Test support for run directories without a cluster: a temporary state dir, what a started
 * cluster writes into its run directory, and an owner that is gone.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeClusterState, type ClusterState } from '../cluster-state.ts';
import { UNDO_JOURNAL_FILE } from '../run-marker.ts';

/**
 * A fresh CHAOS_STATE_DIR, a CHAOS_RAM_DIR (`ram-dir.ts`) and a scratch directory beside them for
 * the user's own directories.
 */
export function tempStateDir(): {
  readonly base: string;
  readonly ram: string;
  readonly scratch: string;
  readonly cleanup: () => void;
} {
  const root = mkdtempSync(join(tmpdir(), 'run-dir-test-'));
  const scratch = join(root, 'user');
  mkdirSync(scratch);
  return {
    base: join(root, 'state'),
    ram: join(root, 'ram'),
    scratch,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** What the embedded backend writes into a run directory once its members started, and a chaos job's undo journal. */
export function writeMemberFiles(dir: string): void {
  mkdirSync(join(dir, 'nodes', 's1r1', 'data'), { recursive: true });
  writeFileSync(join(dir, 'nodes', 's1r1', 'config.xml'), '<clickhouse/>');
  mkdirSync(join(dir, 'keepers', 'k1', 'data'), { recursive: true });
  writeFileSync(join(dir, 'keepers', 'k1', 'zoo.cfg'), 'clientPort=1\n');
  writeFileSync(join(dir, 'toxiproxy.log'), '');
  writeFileSync(join(dir, UNDO_JOURNAL_FILE), '');
}

/** The run's runner died: its recorded owner no longer matches a live process. */
export function loseOwner(state: ClusterState): void {
  state.owner = { pid: process.pid, startTime: 'a process that is gone' };
  writeClusterState(state);
}

export const listing = (dir: string): string[] => readdirSync(dir).sort();
