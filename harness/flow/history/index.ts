export { CRASH_POINTS, type CrashPlan, type CrashPoint } from './crash-point.ts';
export type { FaultType } from './fault-type.ts';
export type { GatedAttempt, GatePhase } from './gated-attempt.ts';
export type {
  AttemptKey,
  FaultEffect,
  FaultEndEvent,
  FaultProof,
  FaultStartEvent,
  FlowEvent,
  GiveUpClaim,
  LinkCounters,
  LogBeforeKill,
  ServerWindow,
  RecoveryBound,
  RecoveryEvent,
  ScheduleCutEvent,
  RecoveryTrigger,
  Stamped,
  ToxicSpec,
  UnknownKind,
  WindowHit,
} from './history-events.ts';
export { eventsOfType, type History, insertAttempts, mergeHistory, readHistory } from './history-reader.ts';
export { historySignature, SIGNATURE_VERSION } from './history-signature.ts';
export type { HistorySink } from './history-sink.ts';
export type { AsyncInsertSettings, ServerInsert } from './server-insert.ts';
export { HistoryWriter } from './history-writer.ts';
