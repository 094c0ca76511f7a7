export { type AnomalyCategory, type AnomalyKind, anomalyKind } from './anomaly-category.ts';
export { type Anomaly, mergeAnomalies } from './check-result.ts';
export { checkScenario, type ScenarioCheck } from './check-scenario.ts';
export type { Coverage, Evidence } from './coverage-checker.ts';
export { CoverageLedger } from './coverage-ledger.ts';
export { clientLinksOf, faultEvidence } from './fault-evidence.ts';
export type { AttemptRecord, ExpectedRefusal, InsertBudget, RefusalRecord } from './observations.ts';
export { observe } from './observe.ts';
export { describeRecovery, recoveriesOf, type RecoveryRecord } from './recoveries.ts';
export { withLogsBeforeKills } from './server-log.ts';
export { sightingsOf } from './sometimes-events.ts';
export { type DeliveryCounts, NO_DELIVERIES } from './total-queue-checker.ts';
export {
  checkEngineRun,
  type EngineCheck,
  type EngineObservation,
  type RowValues,
  type StoredRow,
  type TopicMessage,
} from './kafka-engine-checker.ts';
export {
  checkStagedRun,
  type CrossTableWindow,
  type LoadCount,
  type LoadRecord,
  type ReadRecord,
  type ReplicaFinal,
  type StagedCheck,
  type StagedObservation,
} from './staged-publication-checker.ts';
export { type RunReadTally, type SinkInsert, type SinkRead, tallyReads } from './sink-reads.ts';
