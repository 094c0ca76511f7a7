import { HarnessError } from '../base/index.ts';
import type { BackendName } from './cluster-state.ts';
import type { LocalClusterOptions } from './embedded/start-embedded.ts';
import type { StartedCluster } from './started-cluster.ts';

/** The backends that start a cluster; `external` (the chaos job's `--cluster FILE`) attaches to one instead. */
export const BACKENDS: readonly BackendName[] = ['embedded', 'docker', 'binary'];

export function parseBackend(value: string): BackendName {
  if ((BACKENDS as readonly string[]).includes(value)) return value as BackendName;
  throw new HarnessError(
    'BACKEND_UNKNOWN',
    `unknown backend '${value}'; choose one of ${BACKENDS.join(', ')}, external (the chaos job on a cluster you run: --backend external --cluster FILE)`,
  );
}

/** Starts a cluster on the chosen backend; every backend shares the topology and config generators. */
export async function startCluster(backend: BackendName, options: LocalClusterOptions): Promise<StartedCluster> {
  switch (backend) {
    case 'embedded':
      return (await import('./embedded/start-embedded.ts')).startEmbeddedCluster(options);
    case 'binary':
      return (await import('./binary/start-binary.ts')).startBinaryCluster(options);
    case 'docker':
      return (await import('./docker/start-docker.ts')).startDockerCluster(options);
  }
}
