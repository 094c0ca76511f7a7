import { ClusterAdmin, createDatabaseDdl, createTables, materializedViewDdl } from '../../harness/clickhouse/index.ts';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { columnsDdl } from '../../harness/flow/index.ts';
import type { RunUndo } from '../nemeses/index.ts';
import { databaseTaken } from './run-database.ts';
import type { RunPlan } from './run-plan.ts';
import { tableEngine, VIEW_TABLE } from './target-table.ts';

/**
 * The run's database (plain CREATE, recorded per replica before it is made, so the run drops only
 * what it created: a name already taken fails the run and is left alone), its tables and, for a
 * view scenario, the view and its target.
 */
export function createRunTables(description: ClusterDescription, undo: RunUndo, plan: RunPlan): Promise<void> {
  const { database } = plan;
  return new ClusterAdmin(description).withReplicas(async (replicas) => {
    await Promise.all(
      replicas.map(({ replica, client }) =>
        undo.do(
          { kind: 'database', replica: replica.name, database },
          () => client.command({ query: createDatabaseDdl(database) }),
          databaseTaken,
        ),
      ),
    );
    const clients = replicas.map(({ client }) => client);
    const { engine, settings } = tableEngine(plan.target, plan.serverDedupOff);
    const table = {
      database,
      name: plan.table,
      columns: columnsDdl(plan.source),
      orderBy: 'id',
      ...(engine === undefined ? {} : { engine }),
      settings: settings.join(', '),
      cluster: description.cluster,
    };
    await createTables(clients, table);
    if (plan.target === 'replicated-with-view') {
      await createTables(clients, { ...table, name: VIEW_TABLE });
      const view = materializedViewDdl(database, plan.table, VIEW_TABLE);
      await Promise.all(clients.map((client) => client.command({ query: view })));
    }
  });
}
