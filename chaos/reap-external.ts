import type { Logger } from 'pino';
import { ExternalCluster, readClusterFile } from '../harness/cluster/index.ts';
import { externalClusterJournal, UndoJournal, type UndoOutcome } from './nemeses/index.ts';

/**
 * Undoes what runners of this machine that are gone (SIGKILLed) left in force on an attached
 * cluster, as its undo journal holds it: at every start of a run on it, and for `--reap`. The
 * cluster is not checked first (a member a killed run paused would fail the check), only read
 * from its file; a live runner's entries are its own and stay.
 */
export async function reapExternalCluster(
  clusterFile: string,
  log: Logger,
): Promise<{ readonly journal: string; readonly outcomes: readonly UndoOutcome[] }> {
  const cluster = new ExternalCluster(readClusterFile(clusterFile), log);
  const journal = new UndoJournal(externalClusterJournal(clusterFile), cluster);
  try {
    return { journal: journal.file, outcomes: await journal.reapLeftovers() };
  } finally {
    journal.close();
  }
}
