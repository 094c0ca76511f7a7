import fc from 'fast-check';
import { HarnessError } from '../../harness/base/index.ts';
import { DEFAULT_TOPOLOGY, type TopologySpec, validateTopology } from '../../harness/cluster/index.ts';
import { SINK_CLASS_NAMES, type SinkClassName } from '../../sinks/index.ts';
import { findScenarios } from './catalogue.ts';
import type { ScenarioDefinition } from './scenario.ts';

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

/** A shard name: a letter, then up to 15 letters, digits, `_` or `-`. */
const arbShardName = fc.stringMatching(/^[a-z][a-z0-9_-]{0,15}$/);

/**
 * Nodes a job's drawn shape may have: a pair on 6 nodes took twice as long as on 4 on 2 cores
 * (13.8 s against 7.2 s a pair, seed 166466575), past the `ci` job's six minutes. A soak
 * iteration, where time is not the bound, draws up to 3x3.
 */
export const JOB_SHAPE_MAX_NODES = 4;

/** 1-3 shards of 1-3 replicas (at most `maxNodes` in all), each shard named differently, names of several lengths. */
export const arbClusterShape = (maxNodes = 9): fc.Arbitrary<ClusterShape> =>
  fc
    .record({ shards: fc.integer({ min: 1, max: 3 }), replicas: fc.integer({ min: 1, max: 3 }) })
    .filter(({ shards, replicas }) => shards * replicas <= maxNodes)
    .chain(({ shards, replicas }) =>
      fc
        .uniqueArray(arbShardName, { minLength: shards, maxLength: shards })
        .map((shardNames) => ({ shards, replicas, shardNames })),
    );

/**
 * The cluster shape a seed names (fast-check's draw of `arbClusterShape`, of at most `maxNodes`).
 * Soak iterations meet one such shape every other time, so unequal shard names and thin shards
 * are routed and judged at night.
 */
export function drawnShape(seed: number, maxNodes = 9): ClusterShape {
  const [shape] = fc.sample(arbClusterShape(maxNodes), { seed, numRuns: 1 });
  if (shape === undefined) throw new Error('fast-check drew no cluster shape');
  validateTopology({ ...shape, keepers: 1 });
  return shape;
}

/** The shape a job starts without `--shape`: 2 shards x 2 replicas named s1, s2. */
export const DEFAULT_SHAPE: ClusterShape = { shards: DEFAULT_TOPOLOGY.shards, replicas: DEFAULT_TOPOLOGY.replicas };

/** Whether a scenario's faults and changes have the shards and replicas they need on a shape. */
export const shapeHolds = (shape: ClusterShape, scenario: ScenarioDefinition): boolean =>
  shape.shards >= (scenario.shards ?? 1) && shape.replicas >= (scenario.replicasPerShard ?? 1);

/**
 * The shape a class x scenario pair runs on in a job that starts its clusters. With `--shape`,
 * that one. Without, every job meets two worlds: the default 2x2, and the seed's drawn shape
 * (`drawnShape`, of at most `JOB_SHAPE_MAX_NODES`) for every other pair of the matrix, a checkerboard over class and scenario
 * shifted by the seed, so each class and each scenario meet both. A pair the drawn shape cannot
 * hold stays on the default. The choice depends on the pair and the seed only, never on the
 * selection, so a replay line lands its pair on the shape it ran on.
 */
export function pairShape(
  jobShape: ClusterShape | undefined,
  seed: number,
  sinkClass: SinkClassName,
  scenario: ScenarioDefinition,
): ClusterShape {
  if (jobShape !== undefined) return jobShape;
  const scenarioIndex = findScenarios(undefined).findIndex((known) => known.name === scenario.name);
  if (scenarioIndex < 0) return DEFAULT_SHAPE;
  const drawn = drawnShape(seed, JOB_SHAPE_MAX_NODES);
  const parity = (SINK_CLASS_NAMES.indexOf(sinkClass) + scenarioIndex + seed) % 2;
  return parity === 1 && shapeHolds(drawn, scenario) ? drawn : DEFAULT_SHAPE;
}

/** A shape as a report names it: `2x2 (s1, s2)`. */
export function describeShape(shape: ClusterShape): string {
  const names = shape.shardNames ?? Array.from({ length: shape.shards }, (_, i) => `s${i + 1}`);
  return `${shape.shards}x${shape.replicas} (${names.join(', ')})`;
}
