import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STATE_FILE } from './cluster-state.ts';
import { HOLDER_FILE } from './docker/holder-file.ts';

/** The file that makes a directory a run directory of this harness, written the moment it takes one. */
export const RUN_MARKER = '.ch-sink-chaos-run';

export interface RunMarker {
  readonly runId: string;
  /** Whether the harness created the directory itself: only then may it remove the directory. */
  readonly createdDir: boolean;
}

/** The link to the run's data in memory (`ram-dir.ts`). */
export const RAM_LINK = 'ram';

/** The chaos job's undo journal of a cluster it started (`chaos/nemeses/undo-journal.ts`), kept in the run directory. */
export const UNDO_JOURNAL_FILE = 'undo-journal.jsonl';

/**
 * Every entry the harness writes at the top of a run directory, and all it ever removes there:
 * the marker, the state file (`cluster-state.ts`, written through a `.tmp` rename), each node's
 * and each Keeper's directory (the backends' start-up), the fault proxy's log (`local-launch.ts`),
 * a detached docker cluster's holder record and log (`docker/detached-docker.ts`), and the chaos
 * job's undo journal, and the link to the run's data in memory (`ram-dir.ts`, removed first).
 */
export const RUN_DIR_ENTRIES: readonly string[] = [
  RUN_MARKER,
  STATE_FILE,
  `${STATE_FILE}.tmp`,
  'nodes',
  'keepers',
  'kafka',
  'toxiproxy.log',
  HOLDER_FILE,
  'holder.log',
  UNDO_JOURNAL_FILE,
  RAM_LINK,
];

export function writeRunMarker(dir: string, marker: RunMarker): void {
  writeFileSync(join(dir, RUN_MARKER), `${JSON.stringify(marker)}\n`);
}

/** The directory's marker; undefined when it has none, or one this harness did not write. */
export function readRunMarker(dir: string): RunMarker | undefined {
  try {
    const marker = JSON.parse(readFileSync(join(dir, RUN_MARKER), 'utf8')) as Partial<RunMarker>;
    if (typeof marker.runId !== 'string' || typeof marker.createdDir !== 'boolean') return undefined;
    return { runId: marker.runId, createdDir: marker.createdDir };
  } catch {
    return undefined;
  }
}
