export type { InsertGate } from './insert-gate.ts';
export { createSinkFactory } from './runtime/real-sink-factory.ts';
export type { SinkFactory } from './runtime/sink-factory.ts';
export { DeterministicSource } from './source/deterministic-source.ts';
export {
  columnsDdl,
  DEFAULT_COLUMNS,
  expectedStoredRow,
  type SourceConfig,
  sourceConfig,
  storedColumns,
} from './source/source-config.ts';
export { storedColumnSql, TYPED_COLUMN_NAMES } from './source/typed-columns.ts';
export type { StartedFlowWorker } from './started-worker.ts';
export { FlowSupervisor, type SupervisorOptions } from './supervisor.ts';
export { WorkerExitedError, WorkerRefusedError } from './worker-errors.ts';
