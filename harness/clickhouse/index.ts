export { ClusterAdmin } from './cluster-admin.ts';
export { createDatabaseDdl, createShardedTable, createTables, materializedViewDdl } from './ddl.ts';
