import { existsSync, mkdirSync, readdirSync, readlinkSync, rmdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { readClusterState, stateProcesses, type ClusterState } from './cluster-state.ts';
import { readHolder } from './docker/holder-file.ts';
import { releaseReservationsOf } from './ports.ts';
import { isAlive, signalProcess, waitGone } from './process/local-process.ts';
import { removeRamOf } from './ram-dir.ts';
import { readRunMarker, RUN_DIR_ENTRIES, RUN_MARKER } from './run-marker.ts';
import { statePaths } from './state-dir.ts';

/**
 * What removing a run's files did to its directory: `removed` (the harness created it and it held
 * nothing else), `kept` (the harness's entries are gone, the directory stays, for `reason`) or
 * `left-alone` (it is not this run's: nothing in it was touched).
 */
export type RunDirFate =
  | { readonly fate: 'removed' }
  | { readonly fate: 'kept'; readonly reason: string }
  | { readonly fate: 'left-alone'; readonly reason: string };

export interface ReapedRun {
  readonly runId: string;
  readonly dir: string;
  readonly reason: string;
  readonly killed: number;
  readonly directory: RunDirFate;
}

/** Registers a run directory so a later start can find it even when it lives outside the base. */
export function registerRun(runId: string, dir: string, base?: string): void {
  const paths = statePaths(base);
  mkdirSync(paths.registry, { recursive: true });
  const link = join(paths.registry, runId);
  rmSync(link, { force: true });
  symlinkSync(dir, link);
}

export function unregisterRun(runId: string, base?: string): void {
  rmSync(join(statePaths(base).registry, runId), { force: true });
}

/** Why this run is a leftover, or undefined when it is alive and owned. */
function leftoverReason(state: ClusterState): string | undefined {
  if (state.owner !== null && !isAlive(state.owner)) return `its runner (pid ${state.owner.pid}) is gone`;
  const processes = stateProcesses(state);
  if (state.owner === null && processes.length > 0 && !processes.some(isAlive))
    return 'none of its processes is running';
  return undefined;
}

/** SIGKILLs every process of a run that is still ours (pid + start time) and waits for them. */
export async function killRunProcesses(state: ClusterState): Promise<number> {
  const alive = stateProcesses(state).filter(isAlive);
  for (const record of alive) {
    signalProcess(record, 'SIGKILL');
  }
  await Promise.all(alive.map((record) => waitGone(record, 5000)));
  return alive.length;
}

/**
 * Removes what run `runId` wrote in `dir` (its known entries, the marker last, so an interrupted
 * removal is finished by the next reaper), then the directory itself if the harness created it
 * and nothing else is left. A directory whose marker is missing or names another run is not
 * touched.
 */
function removeOwnedEntries(runId: string, dir: string): RunDirFate {
  if (!existsSync(dir)) return { fate: 'removed' };
  const marker = readRunMarker(dir);
  if (marker === undefined) return { fate: 'left-alone', reason: `it holds no ${RUN_MARKER} marker of this harness` };
  if (marker.runId !== runId) return { fate: 'left-alone', reason: `its marker names run ${marker.runId}` };
  removeRamOf(dir, runId);
  for (const entry of RUN_DIR_ENTRIES) {
    if (entry !== RUN_MARKER) rmSync(join(dir, entry), { recursive: true, force: true });
  }
  rmSync(join(dir, RUN_MARKER), { force: true });
  if (!marker.createdDir) return { fate: 'kept', reason: 'the harness did not create it' };
  const others = readdirSync(dir);
  if (others.length > 0)
    return { fate: 'kept', reason: `it holds files the harness did not write: ${others.join(', ')}` };
  rmdirSync(dir);
  return { fate: 'removed' };
}

/** Releases a run's ports, removes what it wrote in its directory and forgets it. */
export function removeRunFiles(state: Pick<ClusterState, 'runId' | 'dir'>, base?: string): RunDirFate {
  const paths = statePaths(base);
  releaseReservationsOf(paths.ports, state.dir);
  const directory = removeOwnedEntries(state.runId, state.dir);
  unregisterRun(state.runId, base);
  if (pointsAt(paths.current, state.dir)) rmSync(paths.current, { force: true });
  return directory;
}

/** Whether `link` names `dir`, or names nothing that exists any more. */
function pointsAt(link: string, dir: string): boolean {
  try {
    return readlinkSync(link) === dir || !existsSync(link);
  } catch {
    return false;
  }
}

/** Every registered run directory, as the registry's links name them. */
function registeredRuns(base?: string): Array<{ readonly runId: string; readonly dir: string }> {
  const registry = statePaths(base).registry;
  let entries: string[] = [];
  try {
    entries = readdirSync(registry);
  } catch {
    return [];
  }
  return entries.flatMap((runId) => {
    try {
      return [{ runId, dir: readlinkSync(join(registry, runId)) }];
    } catch {
      return [];
    }
  });
}

/**
 * Finds runs left by a killed runner (or whose processes all died) and removes them: processes,
 * port reservations, what they wrote in their directory (`removeRunFiles`). Called at every start
 * so leftovers never pile up.
 */
export async function reapLeftovers(base?: string): Promise<ReapedRun[]> {
  const reaped: ReapedRun[] = [];
  for (const { runId, dir } of registeredRuns(base)) {
    const holder = readHolder(dir);
    if (holder !== undefined) {
      // A detached docker cluster: its containers go with its holder process (testcontainers' reaper).
      if (isAlive(holder.holder)) continue;
      const directory = removeRunFiles(holder, base);
      reaped.push({ runId, dir, reason: `its docker holder (pid ${holder.holder.pid}) is gone`, killed: 0, directory });
      continue;
    }
    let state: ClusterState;
    try {
      state = readClusterState(dir);
    } catch {
      // A directory whose state was never written (the runner died before its first process),
      // or that is no longer a run directory at all.
      const directory = removeRunFiles({ runId, dir }, base);
      reaped.push({ runId, dir, reason: 'it has no readable cluster state', killed: 0, directory });
      continue;
    }
    const reason = leftoverReason(state);
    if (reason === undefined) continue;
    const killed = await killRunProcesses(state);
    const directory = removeRunFiles(state, base);
    reaped.push({ runId, dir, reason, killed, directory });
  }
  return reaped;
}

/**
 * Tears down every run this process owns, whatever stage it reached (a cluster half started
 * included): the interrupt path, which cannot wait for the code that started it to unwind.
 */
export async function reapRunsOwnedBy(pid: number, base?: string): Promise<ReapedRun[]> {
  const reaped: ReapedRun[] = [];
  for (const { runId, dir } of registeredRuns(base)) {
    let state: ClusterState;
    try {
      state = readClusterState(dir);
    } catch {
      continue;
    }
    if (state.owner?.pid !== pid) continue;
    const killed = await killRunProcesses(state);
    const directory = removeRunFiles(state, base);
    reaped.push({ runId, dir, reason: `its runner (pid ${pid}) was interrupted`, killed, directory });
  }
  return reaped;
}
