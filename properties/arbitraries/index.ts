export { arbEveryOnce } from './arb-every-once.ts';
export { arbTiming } from './arb-timing.ts';
export { arbDynamicParameters, arbSinkSpec, type RawSinkSpec, type SpecTarget } from './arb-sink-spec.ts';
export {
  arbWorkload,
  LARGE_EPOCH,
  largeEpoch,
  MAX_PARTITIONS,
  type Workload,
  type WorkloadLimits,
} from './arb-workload.ts';
export { chainTailFirst } from './chain-tail-first.ts';
export { clusterEndpoints, type ClusterEndpoints } from './cluster-endpoints.ts';
export {
  boundariesOf,
  boundarySpecs,
  meetsBoundary,
  SPEC_BOUNDARIES,
  type BoundarySpec,
  type SpecBoundary,
} from './spec-boundaries.ts';
