import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { componentLogger, HarnessError } from '../base/index.ts';
import { readClusterState } from './cluster-state.ts';
import { StartedLocalCluster } from './local-cluster.ts';
import { statePaths } from './state-dir.ts';

/** The run directory `cluster up` started last, for `status` and `down` without --dir. */
export function currentClusterDir(): string {
  try {
    return readlinkSync(statePaths().current);
  } catch {
    throw new HarnessError(
      'CLUSTER_NOT_FOUND',
      'no cluster is running (nothing started with `npm run cluster -- up`); pass --dir DIR for another one',
    );
  }
}

/** A handle on a running local cluster from another process, rebuilt from its state file. */
export function attachCluster(dir = currentClusterDir()): StartedLocalCluster {
  const state = readClusterState(dir);
  if (state.backend === 'docker') {
    throw new HarnessError(
      'BACKEND_UNSUPPORTED',
      `run ${state.runId} uses the docker backend, whose containers live only as long as the process that started them`,
    );
  }
  return new StartedLocalCluster(state, componentLogger('cluster', { runId: state.runId }));
}

/** Every run directory this machine's harness has registered and not yet removed. */
export function registeredRunDirs(): string[] {
  const registry = statePaths().registry;
  let entries: string[];
  try {
    entries = readdirSync(registry);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    try {
      return [readlinkSync(join(registry, entry))];
    } catch {
      return [];
    }
  });
}
