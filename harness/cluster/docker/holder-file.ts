import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterDescription } from '../description.ts';
import type { ProcessRecord } from '../process/local-process.ts';

/** The record of a detached docker cluster: the process that holds its containers. */
export const HOLDER_FILE = 'docker-holder.json';

export interface HolderState {
  readonly runId: string;
  readonly dir: string;
  readonly holder: ProcessRecord;
  /** Absent until the holder's cluster is up. */
  readonly description?: ClusterDescription;
}

/** Recorded the moment the holder exists, so no reaper takes the directory for an abandoned one. */
export function writeHolder(state: HolderState): void {
  writeFileSync(join(state.dir, HOLDER_FILE), JSON.stringify(state));
}

export function readHolder(dir: string): HolderState | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, HOLDER_FILE), 'utf8')) as HolderState;
  } catch {
    return undefined;
  }
}
