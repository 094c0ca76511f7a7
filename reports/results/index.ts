export { NO_TALLY, addTally, sumTallies, type Tally } from './tally.ts';
export { runTally } from './run-tally.ts';
export type {
  ClassReport,
  ConfigurationRow,
  JobReport,
  JobSelection,
  OwedTally,
  ReadFigures,
  ReadTimeline,
  ScenarioReport,
} from './job-report.ts';
export { classConfigurations, classReport, classVerdict, jobVerdict, mergeConfigurationRows } from './class-report.ts';
export { EXIT_STATUSES, exitStatusOf, exitStatusTable, resultExitStatus } from './exit-status.ts';
export {
  insertPerformance,
  type InsertPerformance,
  type LatencyQuantiles,
  type MedianAndTail,
  quantile,
  type RecoveryFigures,
} from './performance.ts';
export { mostEventfulRun, runTimelines, type RunTimeline, type TaggedEvent } from './timeline.ts';
export { mergeSliceRuns, MergeError, type MatrixCatalogue, type SliceRun } from './merge-slices.ts';
export { isScenarioDirName, parseScenarioDirName, scenarioDirName } from './scenario-dir.ts';
export { readJsonLines } from './jsonl.ts';
export { readJobReport, RUN_RESULT_VERSION, storedJobReport } from './stored-job-report.ts';
export {
  detectionOutcome,
  matrixExitStatus,
  matrixHeadline,
  rowHolds,
  type Detection,
  type MatrixRow,
  type MutationMatrix,
} from './mutation-matrix.ts';
export { readTrendLines, TREND_LINE_VERSION, type TrendLine } from './trend-line.ts';
