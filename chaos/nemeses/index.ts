export {
  BANDWIDTH,
  LATENCY,
  LIMIT_DATA,
  PROXY_DOWN,
  REQUEST_TIMEOUT,
  RESET_PEER,
  RESPONSE_TIMEOUT,
  SLICER,
} from './families/client-link.ts';
export { arbFault, faultSpec } from './families/family.ts';
export { KEEPER_LEADER_KILL, KEEPER_LEADER_PAUSE, KEEPER_QUORUM_LOSS } from './families/keeper-ensemble.ts';
export { KEEPER_LINK_LATENCY } from './families/keeper-link-latency.ts';
export { KEEPER_LINK_CUT, KEEPER_PAUSE } from './families/keeper.ts';
export { QUORUM_INTERSERVER_CUT, QUORUM_SIBLING_KILL, QUORUM_SIBLING_PAUSE } from './families/quorum.ts';
export { checkFaultSpec, planOf } from './families/registry.ts';
export { INTERSERVER_CUT, REPLICA_KILL, REPLICA_PAUSE } from './families/replica.ts';
export { SERVER_ERROR_FAMILIES } from './families/server-error.ts';
export { COMMIT_KEEPER_CUT } from './families/server-window.ts';
export { aimTarget, type FaultPlan } from './fault-plan.ts';
export type { Fault, FaultWindow, NemesisContext } from './fault.ts';
export { describedProxies, ensureProxiesClean } from './heal-proxies.ts';
export { type FaultUndo, RunUndo } from './run-undo.ts';
// Faults built directly, for a path without an INSERT to aim at (the Kafka engine's consumers).
export { brokerStop, replicaKill } from './process-fault.ts';
export { keeperLinkCut, proxyDown } from './proxy-fault.ts';
export { keeperLeaderKill } from './keeper-fault.ts';
export {
  latency as latencyFault,
  requestLatency as requestLatencyFault,
  resetPeer as resetPeerFault,
} from './toxic-fault.ts';
export { readLinkCounters } from './link-counters.ts';
export {
  describeOutcome,
  externalClusterJournal,
  requireUndone,
  startedClusterJournal,
  UndoJournal,
  type UndoOutcome,
} from './undo-journal.ts';
