import { HarnessError } from '../harness/base/index.ts';
import { type TopologySpec, validateTopology } from '../harness/cluster/index.ts';

/** The shards and replicas of the cluster a job starts (`--shape 3x1`, `--shape 2x2:a,north-eu`), its shard names optional. */
export type ClusterShape = Omit<TopologySpec, 'keepers'>;

/** `SxR` or `SxR:name,name,..`, checked as `cluster up` checks it; an attached cluster has the shape its file gives. */
export function parseShape(value: string, backend: string): ClusterShape {
  if (backend === 'external')
    throw new HarnessError(
      'CLI_USAGE',
      '--shape shapes a cluster the job starts; an attached one has the shape its file gives',
    );
  const match = /^(\d+)x(\d+)(?::(.+))?$/.exec(value);
  if (match === null)
    throw new HarnessError(
      'CLI_USAGE',
      `--shape takes SHARDSxREPLICAS, optionally :name,name,.. (e.g. 3x1 or 2x2:a,north-eu), got '${value}'`,
    );
  const names = match[3]?.split(',');
  const topology = validateTopology({
    shards: Number(match[1]),
    replicas: Number(match[2]),
    keepers: 1,
    ...(names === undefined ? {} : { shardNames: names }),
  });
  return {
    shards: topology.shards,
    replicas: topology.replicas,
    ...(topology.shardNames === undefined ? {} : { shardNames: topology.shardNames }),
  };
}

/** The `--shape` a replay line carries, so the replay starts the cluster its case ran on. */
export const shapeArgument = (shape: ClusterShape | undefined): string =>
  shape === undefined
    ? ''
    : ` --shape ${shape.shards}x${shape.replicas}${shape.shardNames === undefined ? '' : `:${shape.shardNames.join(',')}`}`;
