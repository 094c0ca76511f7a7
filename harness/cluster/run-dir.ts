import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HarnessError, newRunId } from '../base/index.ts';
import {
  readClusterState,
  stateProcesses,
  writeClusterState,
  type BackendName,
  type ClusterState,
} from './cluster-state.ts';
import { readHolder } from './docker/holder-file.ts';
import { isAlive, processStartTime } from './process/local-process.ts';
import { linkRunToRam, ramBaseDir } from './ram-dir.ts';
import { registerRun, removeRunFiles } from './reaper.ts';
import { readRunMarker, RUN_DIR_ENTRIES, RUN_MARKER, writeRunMarker, type RunMarker } from './run-marker.ts';
import { statePaths } from './state-dir.ts';
import type { TopologySpec } from './topology.ts';

export function selfAsOwner(): { pid: number; startTime: string } {
  return { pid: process.pid, startTime: processStartTime(process.pid) ?? 'unknown' };
}

function stateIn(dir: string): ClusterState | undefined {
  try {
    return readClusterState(dir);
  } catch {
    return undefined;
  }
}

/** The earlier run in a directory, if its docker holder, one of its processes or its owner still runs. */
function runningEarlierRun(dir: string): string | undefined {
  const holder = readHolder(dir);
  if (holder !== undefined) return isAlive(holder.holder) ? holder.runId : undefined;
  const state = stateIn(dir);
  if (state === undefined) return undefined;
  const running = stateProcesses(state).some(isAlive) || (state.owner !== null && isAlive(state.owner));
  return running ? state.runId : undefined;
}

/**
 * Whether `dir` may become a run directory, changing nothing: it does not exist, or is empty, or
 * holds an earlier run of this harness (its marker) that no longer runs and nothing but that
 * run's own entries. Anything else is refused with one line. Returns the earlier run's marker.
 */
export function checkRunDir(dir: string): RunMarker | undefined {
  if (!existsSync(dir)) return undefined;
  if (!statSync(dir).isDirectory())
    throw new HarnessError(
      'RUN_DIR_NOT_OURS',
      `the run directory ${dir} is not a directory; give --dir a new or empty one`,
    );
  const marker = readRunMarker(dir);
  const entries = readdirSync(dir);
  const foreign = marker === undefined ? entries : entries.filter((entry) => !RUN_DIR_ENTRIES.includes(entry));
  if (foreign.length > 0) {
    const shown = foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? `, … (${foreign.length} entries)` : '');
    const found =
      marker === undefined
        ? `is not empty (${shown}) and holds no ${RUN_MARKER} marker`
        : `holds files the harness did not write (${shown})`;
    throw new HarnessError(
      'RUN_DIR_NOT_OURS',
      `the run directory ${dir} ${found}: give --dir a new or empty directory (the harness deletes only what it created)`,
    );
  }
  if (marker === undefined) return undefined;
  const running = runningEarlierRun(dir);
  if (running !== undefined) {
    throw new HarnessError(
      'CLUSTER_RUNNING',
      `a cluster is already running in ${dir} (run ${running}); stop it with \`npm run cluster -- down --dir ${dir}\``,
    );
  }
  return marker;
}

/**
 * Takes `dir` for run `runId` and writes its marker, or refuses it (`checkRunDir`); an earlier run
 * of ours that no longer runs is cleared first, as the reaper would.
 */
export function claimRunDir(dir: string, runId: string): void {
  const earlier = checkRunDir(dir);
  // None of the earlier run's processes is alive (checkRunDir): only its files are left.
  if (earlier !== undefined) removeRunFiles({ runId: earlier.runId, dir });
  const createdDir = !existsSync(dir);
  mkdirSync(dir, { recursive: true });
  writeRunMarker(dir, { runId, createdDir });
}

/**
 * Takes the run directory (refusing one that is not the harness's to take), writes its first
 * state (owned by this process) and registers it, so that from here on a crash of this process
 * leaves something the reaper can find.
 */
export function createRunDir(options: {
  backend: BackendName;
  topology: TopologySpec;
  proxiesEnabled: boolean;
  dir?: string | undefined;
}): ClusterState {
  const runId = newRunId();
  const dir = resolve(options.dir ?? join(statePaths().runs, runId));
  claimRunDir(dir, runId);
  const state: ClusterState = {
    version: 1,
    runId,
    backend: options.backend,
    dir,
    createdAt: new Date().toISOString(),
    owner: selfAsOwner(),
    topology: options.topology,
    proxiesEnabled: options.proxiesEnabled,
    toxiproxy: null,
    keepers: [],
    nodes: [],
    ports: [],
  };
  writeClusterState(state);
  registerRun(runId, dir);
  // Docker's members keep their data in their containers; only the local backends' go to memory.
  if (options.backend !== 'docker') linkRunToRam(dir, runId, ramBaseDir());
  return state;
}
