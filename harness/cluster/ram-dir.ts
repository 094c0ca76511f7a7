import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { RAM_LINK, readRunMarker, writeRunMarker } from './run-marker.ts';

/*
 * A run directory's `RAM_LINK` points at the run's data in memory. ClickHouse creates and
 * deletes a handful of files per part, per INSERT and per replica fetch; on the ext4 disk of the
 * 2-core machines a replicated 10-row INSERT cost the nodes 19-35 ms of CPU and took 13-19 ms
 * (median), against 10-12 ms and 8-9 ms with the cluster's data on tmpfs (400 INSERTs into each of
 * three fresh tables, two clusters of each kind); a sixth of a node's samples on disk were the
 * kernel creating inodes. The data directories of the nodes and the Keepers live there; configs
 * and logs stay in the run directory, where a report collects them.
 */

const DEFAULT_RAM_BASE = '/dev/shm';

/**
 * Where runs keep their data in memory: `CHAOS_RAM_DIR` (a directory, or `off` to keep the data
 * in the run directory), else `/dev/shm/ch-sink-chaos-ram` when `/dev/shm` is a writable tmpfs.
 */
export function ramBaseDir(env: NodeJS.ProcessEnv = process.env, mounts = readMounts()): string | undefined {
  const chosen = env.CHAOS_RAM_DIR;
  if (chosen === 'off') return undefined;
  if (chosen !== undefined && chosen !== '') return chosen;
  if (!mounts.some((mount) => mount.point === DEFAULT_RAM_BASE && mount.type === 'tmpfs')) return undefined;
  try {
    accessSync(DEFAULT_RAM_BASE, constants.W_OK);
  } catch {
    return undefined;
  }
  return join(DEFAULT_RAM_BASE, 'ch-sink-chaos-ram');
}

function readMounts(): Array<{ readonly point: string; readonly type: string }> {
  try {
    return readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .filter((fields) => fields.length >= 3)
      .map((fields) => ({ point: fields[1] ?? '', type: fields[2] ?? '' }));
  } catch {
    return [];
  }
}

/**
 * Gives run `runId` (its directory `dir`, already marked) a data directory under `base`: the link
 * first, then the directory and its marker, so a run killed in between leaves a link the reaper
 * follows and never a directory nothing points at.
 */
export function linkRunToRam(dir: string, runId: string, base: string | undefined): void {
  if (base === undefined) return;
  const target = join(base, runId);
  symlinkSync(target, join(dir, RAM_LINK));
  mkdirSync(target, { recursive: true });
  writeRunMarker(target, { runId, createdDir: true });
}

/** The directory a run's members keep their data under: the memory one when the run has it. */
export function dataRoot(dir: string): string {
  return isLink(join(dir, RAM_LINK)) ? join(dir, RAM_LINK) : dir;
}

/**
 * Removes run `runId`'s memory directory and the link to it. The target is deleted only when it is
 * named after the run and carries the run's own marker (or is still empty: the run died before
 * marking it): a link that was edited to point elsewhere costs nothing but the link.
 */
export function removeRamOf(dir: string, runId: string): void {
  const link = join(dir, RAM_LINK);
  if (!isLink(link)) return;
  const target = readlinkSync(link);
  if (basename(target) === runId && existsSync(target) && (readRunMarker(target)?.runId === runId || isEmpty(target)))
    rmSync(target, { recursive: true, force: true });
  rmSync(link, { force: true });
}

function isEmpty(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
