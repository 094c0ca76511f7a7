export { findScenarios } from './catalogue.ts';
export {
  type Profile,
  type ScenarioContext,
  type ScenarioDefinition,
  SHORT_DEDUP_WINDOW_S,
  type TargetTable,
} from './scenario.ts';
export {
  type ClusterShape,
  DEFAULT_SHAPE,
  JOB_SHAPE_MAX_NODES,
  describeShape,
  drawnShape,
  pairShape,
  parseShape,
  shapeArgument,
  shapeHolds,
} from './cluster-shape.ts';
