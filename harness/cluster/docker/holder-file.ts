import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterDescription } from '../description.ts';
import type { ProcessRecord } from '../process/local-process.ts';

/** The record of a detached docker cluster: the process that holds its containers. */
export const HOLDER_FILE = 'docker-holder.json';

export interface HolderState {
  readonly runId: string;
  readonly dir: string;
  readonly holder: ProcessRecord;
  readonly description: ClusterDescription;
}

export function readHolder(dir: string): HolderState | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, HOLDER_FILE), 'utf8')) as HolderState;
  } catch {
    return undefined;
  }
}
