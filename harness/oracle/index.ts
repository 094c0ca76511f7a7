export {
  type AsyncInsertSettings,
  collectGroundTruth,
  type GroundTruth,
  type ServerInsert,
  serverInserts,
} from './ground-truth.ts';
export { layoutKey, type RoutingLayout } from './rendezvous-sql.ts';
export type { ReplicaTruth } from './replica-counts.ts';
export { rowForm } from './row-form.ts';
export { dumpSystemTables } from './system-dumps.ts';
