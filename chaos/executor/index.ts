export { CHECK_INPUT_FILE, readCheckRecord } from './check-record.ts';
export type { ScenarioOutcome } from './executed-run.ts';
export { BUDGETS, type Profile, SERVER_DEDUP_MODES, type ServerDedupMode } from './run-budget.ts';
export type { RunInput } from './run-input.ts';
export { databaseTaken, runDatabaseName } from './run-database.ts';
export { runScenario } from './run-scenario.ts';
export { awaitWritableReplicas } from './settle-cluster.ts';
export { replayCommand, scenarioReport } from './scenario-report.ts';
export { readScheduleFile, runInputOf } from './schedule-file.ts';
export { compareSignatures, readSignature } from './signature-file.ts';
export { REAL_SINK_HOST, type SinkHost } from './sink-host.ts';
export {
  explorePath,
  pathScenarioVerdict,
  type PathLoop,
  type PathOutcome,
  type PathRecheck,
  type PathRun,
} from './path-loop.ts';
export {
  type PathRunContext,
  pathRunViolated,
  type PathRunResult,
  type PathScenarioOptions,
  type PathScenarioSpec,
  readStoredPathRun,
  type RecordedPathRun,
  runPathScenario,
} from './path-scenario.ts';
