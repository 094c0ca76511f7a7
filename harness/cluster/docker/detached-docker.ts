import { join, resolve } from 'node:path';
import { HarnessError, newRunId, PROJECT_ROOT } from '../../base/index.ts';
import type { ClusterDescription } from '../description.ts';
import { dockerPlan } from './docker-plan.ts';
import type { LocalClusterOptions } from '../embedded/start-embedded.ts';
import { isAlive, spawnLocal, tailOfFile, terminate } from '../process/local-process.ts';
import { registerRun, removeRunFiles, type RunDirFate } from '../reaper.ts';
import { claimRunDir } from '../run-dir.ts';
import { statePaths } from '../state-dir.ts';
import { writeHolder, type HolderState } from './holder-file.ts';

/** `cluster up --backend docker`: starts a holder process, waits for its description, returns. */
export async function upDetachedDocker(options: LocalClusterOptions): Promise<ClusterDescription> {
  // What the plan refuses (a topology it cannot hold) is refused before the engine is even asked.
  dockerPlan(options.topology, options.proxies !== false);
  // Loaded when used: testcontainers takes seconds to load, and every command loads the cluster's face.
  await (await import('./start-docker.ts')).requireDocker(options.proxies !== false);
  const runId = newRunId();
  const dir = resolve(options.dir ?? join(statePaths().runs, runId));
  claimRunDir(dir, runId);
  const { topology } = options;
  const spawned = spawnLocal({
    name: 'docker-holder',
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      join(PROJECT_ROOT, 'harness/cluster/docker/docker-holder.ts'),
      dir,
      runId,
      String(topology.shards),
      String(topology.replicas),
      String(topology.keepers),
      options.proxies === false ? 'no-proxies' : 'proxies',
    ],
    cwd: PROJECT_ROOT,
    logFile: join(dir, 'holder.log'),
  });
  // Holder first, then the registry link: a reaper never finds this run without its holder.
  writeHolder({ runId, dir, holder: spawned.record });
  registerRun(runId, dir);
  const deadline = Date.now() + 300_000;
  for (;;) {
    const line = tailOfFile(spawned.record.logFile, 1);
    if (line.startsWith('{')) {
      const description = { ...(JSON.parse(line) as ClusterDescription), dir };
      writeHolder({ runId, dir, holder: spawned.record, description });
      return description;
    }
    if (!isAlive(spawned.record) || Date.now() > deadline) {
      removeRunFiles({ runId, dir });
      throw new HarnessError('DOCKER_START_FAILED', `the docker cluster did not start: ${line || 'no output'}`);
    }
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

export async function downDetachedDocker(holder: HolderState): Promise<RunDirFate> {
  await terminate(holder.holder, 'SIGTERM', 60_000);
  return removeRunFiles(holder);
}
