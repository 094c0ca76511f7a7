/** The public API of `harness/flow/`: the stream-processor runtime model the sinks live in. */
export { FlowSupervisor, type LaunchOptions, type SupervisorOptions } from './supervisor.ts';
export { StartedFlowWorker } from './started-worker.ts';
export { WorkerExitedError, WorkerRefusedError, type WorkerExit } from './worker-errors.ts';
export { WorkerHost, type StartRefusal } from './worker-host.ts';
export type { WorkerConfig } from './worker-config.ts';
export type { CommandResults, WorkerCommand } from './worker-protocol.ts';

export { DeterministicSource } from './source/deterministic-source.ts';
export { columnsDdl, DEFAULT_COLUMNS, sourceConfig, streamSchema, type ColumnRole, type SourceColumn, type SourceConfig } from './source/source-config.ts';

export { StateStore, type EpochCommit, type PartitionProgress, type UndeliveredSummary } from './store/state-store.ts';
export { APPLICATION_ID, SCHEMA_VERSION } from './store/state-schema.ts';

export type * from './history/history-events.ts';
export type { HistorySink } from './history/history-sink.ts';
export { HistoryWriter } from './history/history-writer.ts';
export { eventsOfType, insertAttempts, mergeHistory, readHistory, type History, type InsertAttemptRecord } from './history/history-reader.ts';

export { CRASH_POINTS, CrashSwitch, validateCrashPlan, type CrashAction, type CrashHit, type CrashPlan, type CrashPoint } from './runtime/crash-points.ts';
export type { EpochOutcome, PartitionState, PartitionStatus } from './runtime/partition-runtime.ts';
export type { SinkFactory, SinkFactoryModule } from './runtime/sink-factory.ts';
