import { mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Everything a run leaves on disk lives under one base directory (override with
 * CHAOS_STATE_DIR): `runs/<run-id>/` (default run directories), `registry/<run-id>` (a link
 * to every run directory, also those given with --dir, so the reaper finds them) and `current`
 * (the cluster `cluster up` started last). Port reservations are the machine's, not the base
 * directory's (`portReservationDir`).
 */
export function stateBaseDir(): string {
  return process.env.CHAOS_STATE_DIR ?? join(tmpdir(), 'ch-sink-chaos');
}

/**
 * One directory of port reservations for every run on the machine, whatever its CHAOS_STATE_DIR:
 * a cluster whose member is down (killed by a fault, a proxy disabled) is not listening on its
 * port, and only its reservation keeps a cluster of another state directory from taking that
 * port and breaking the restart (CHAOS_PORTS_DIR overrides it, for tests).
 */
export function portReservationDir(): string {
  return process.env.CHAOS_PORTS_DIR ?? join(tmpdir(), 'ch-sink-chaos-ports');
}

export const statePaths = (base = stateBaseDir()) => ({
  base,
  runs: join(base, 'runs'),
  registry: join(base, 'registry'),
  ports: portReservationDir(),
  current: join(base, 'current'),
  libraryCache: join(base, 'verified-libraries.json'),
});

/**
 * Points `current` at `dir`. Two `cluster up` finishing at once must both succeed: the link is
 * made under a name of this process's own and renamed over `current`, which replaces it in one
 * step (removing it, then linking, let the second start fail with EEXIST after its cluster was up).
 */
export function pointCurrentAt(dir: string, base?: string): void {
  const { current, base: root } = statePaths(base);
  mkdirSync(root, { recursive: true });
  const staging = `${current}.${process.pid}`;
  rmSync(staging, { force: true });
  symlinkSync(dir, staging);
  renameSync(staging, current);
}
