import { existsSync, mkdirSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { readClusterState, stateProcesses, type ClusterState } from './cluster-state.ts';
import { readHolder } from './docker/holder-file.ts';
import { releaseReservationsOf } from './ports.ts';
import { isAlive, signalProcess, waitGone } from './process/local-process.ts';
import { statePaths } from './state-dir.ts';

export interface ReapedRun {
  readonly runId: string;
  readonly dir: string;
  readonly reason: string;
  readonly killed: number;
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

export function removeRunFiles(state: Pick<ClusterState, 'runId' | 'dir'>, base?: string): void {
  const paths = statePaths(base);
  releaseReservationsOf(paths.ports, state.dir);
  rmSync(state.dir, { recursive: true, force: true });
  unregisterRun(state.runId, base);
  // `current` may now point at the directory just removed.
  if (!existsSync(paths.current)) rmSync(paths.current, { force: true });
}

/** Every registered run directory, as the registry's links name them. */
function registeredRuns(base?: string): Array<{ readonly runId: string; readonly link: string; readonly dir: string }> {
  const registry = statePaths(base).registry;
  let entries: string[] = [];
  try {
    entries = readdirSync(registry);
  } catch {
    return [];
  }
  return entries.flatMap((runId) => {
    const link = join(registry, runId);
    try {
      return [{ runId, link, dir: readlinkSync(link) }];
    } catch {
      return [];
    }
  });
}

/**
 * Finds runs left by a killed runner (or whose processes all died) and removes them: processes,
 * port reservations, directory. Called at every start so leftovers never pile up.
 */
export async function reapLeftovers(base?: string): Promise<ReapedRun[]> {
  const paths = statePaths(base);
  const reaped: ReapedRun[] = [];
  for (const { runId, link, dir } of registeredRuns(base)) {
    const holder = readHolder(dir);
    if (holder !== undefined) {
      // A detached docker cluster: its containers go with its holder process (testcontainers' reaper).
      if (isAlive(holder.holder)) continue;
      removeRunFiles(holder, base);
      reaped.push({ runId, dir, reason: `its docker holder (pid ${holder.holder.pid}) is gone`, killed: 0 });
      continue;
    }
    let state: ClusterState;
    try {
      state = readClusterState(dir);
    } catch {
      // A directory whose state was never written: the runner died before its first process.
      releaseReservationsOf(paths.ports, dir);
      rmSync(dir, { recursive: true, force: true });
      rmSync(link, { force: true });
      reaped.push({ runId, dir, reason: 'it has no readable cluster state', killed: 0 });
      continue;
    }
    const reason = leftoverReason(state);
    if (reason === undefined) continue;
    const killed = await killRunProcesses(state);
    removeRunFiles(state, base);
    reaped.push({ runId, dir, reason, killed });
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
    removeRunFiles(state, base);
    reaped.push({ runId, dir, reason: `its runner (pid ${pid}) was interrupted`, killed });
  }
  return reaped;
}
