import { existsSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { HarnessError } from '../errors.ts';
import {
  readClusterState,
  stateProcesses,
  writeClusterState,
  type BackendName,
  type ClusterState,
} from './cluster-state.ts';
import { isAlive, processStartTime } from './process/local-process.ts';
import { killRunProcesses, registerRun, removeRunFiles } from './reaper.ts';
import { statePaths } from './state-dir.ts';
import type { TopologySpec } from './topology.ts';

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

export function selfAsOwner(): { pid: number; startTime: string } {
  return { pid: process.pid, startTime: processStartTime(process.pid) ?? 'unknown' };
}

/**
 * Creates the run directory and its first state (owned by this process) and registers it, so
 * that from here on a crash of this process leaves something the reaper can find.
 */
export async function createRunDir(options: {
  backend: BackendName;
  topology: TopologySpec;
  proxiesEnabled: boolean;
  dir?: string;
}): Promise<ClusterState> {
  const runId = newRunId();
  const dir = options.dir ?? join(statePaths().runs, runId);
  if (existsSync(join(dir, 'cluster.json'))) {
    const previous = readClusterState(dir);
    if (stateProcesses(previous).some(isAlive)) {
      throw new HarnessError(
        'CLUSTER_RUNNING',
        `a cluster is already running in ${dir} (run ${previous.runId}); stop it with \`npm run cluster -- down --dir ${dir}\``,
      );
    }
    await killRunProcesses(previous);
    removeRunFiles(previous);
  }
  mkdirSync(dir, { recursive: true });
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
  return state;
}
