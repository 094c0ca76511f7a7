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

/** mulberry32: a small deterministic generator, so a seed names one shape everywhere. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAME_HEAD = 'abcdefghijklmnopqrstuvwxyz';
const NAME_TAIL = `${NAME_HEAD}0123456789_-`;

/**
 * A cluster shape drawn from a seed: 1-3 shards of 1-3 replicas, each shard named with 1 to 16
 * characters (a letter, then letters, digits, `_` and `-`), no two alike. Soak iterations meet one
 * such shape every other time, so unequal shard names and thin shards are routed and judged at night.
 */
export function drawnShape(seed: number): ClusterShape {
  const next = generator(seed);
  const pick = (from: string) => from[Math.floor(next() * from.length)] ?? 'a';
  const shards = 1 + Math.floor(next() * 3);
  const replicas = 1 + Math.floor(next() * 3);
  const names: string[] = [];
  while (names.length < shards) {
    const length = 1 + Math.floor(next() * 16);
    const name = pick(NAME_HEAD) + Array.from({ length: length - 1 }, () => pick(NAME_TAIL)).join('');
    if (!names.includes(name)) names.push(name);
  }
  validateTopology({ shards, replicas, keepers: 1, shardNames: names });
  return { shards, replicas, shardNames: names };
}
