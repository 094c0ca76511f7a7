import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historySignature, SIGNATURE_VERSION, type Stamped } from '../../harness/flow/history/index.ts';

/** Beside a run's `schedule.json`: the signature of the history that input produced (`harness/flow/history/history-signature.ts`). */
export const SIGNATURE_FILE = 'signature.json';

/** Writes the run's history signature and the projection it hashes (two that differ can be diffed). */
export function writeSignatureFile(dir: string, events: readonly Stamped[]): string {
  const { sha256, projection } = historySignature(events);
  writeFileSync(join(dir, SIGNATURE_FILE), `${JSON.stringify({ sha256, projection }, null, 2)}\n`);
  return sha256;
}

/** The signature a run directory holds: absent when the run never reached its store, or of another signature version. */
export function readSignature(dir: string): string | undefined {
  const path = join(dir, SIGNATURE_FILE);
  if (!existsSync(path)) return undefined;
  const stored = JSON.parse(readFileSync(path, 'utf8')) as {
    sha256?: unknown;
    projection?: { version?: unknown };
  };
  return typeof stored.sha256 === 'string' && stored.projection?.version === SIGNATURE_VERSION
    ? stored.sha256
    : undefined;
}

/** The replay's line: the stored run's signature next to the replay's, `same` or `differs`. */
export function compareSignatures(stored: string | undefined, replayed: string | undefined): string {
  const shown = (value: string | undefined) => value ?? 'none';
  const verdict = stored !== undefined && stored === replayed ? 'same' : 'differs';
  return `history signature: stored ${shown(stored)}, replay ${shown(replayed)}: ${verdict}`;
}
