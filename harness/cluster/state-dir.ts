import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Everything a run leaves on disk lives under one base directory (override with
 * CHAOS_STATE_DIR): `runs/<run-id>/` (default run directories), `registry/<run-id>` (a link
 * to every run directory, also those given with --dir, so the reaper finds them), `ports/`
 * (port reservations) and `current` (the cluster `cluster up` started last).
 */
export function stateBaseDir(): string {
  return process.env.CHAOS_STATE_DIR ?? join(tmpdir(), 'ch-sink-chaos');
}

export const statePaths = (base = stateBaseDir()) => ({
  base,
  runs: join(base, 'runs'),
  registry: join(base, 'registry'),
  ports: join(base, 'ports'),
  current: join(base, 'current'),
  libraryCache: join(base, 'verified-libraries.json'),
});
