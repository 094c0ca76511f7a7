import { HarnessError } from '../../errors.ts';
import type { LocalClusterOptions } from '../embedded/start-embedded.ts';
import type { StartedCluster } from '../started-cluster.ts';

export async function startDockerCluster(options: LocalClusterOptions): Promise<StartedCluster> {
  void options;
  throw new HarnessError('DOCKER_UNAVAILABLE', 'placeholder');
}
