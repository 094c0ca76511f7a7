import type { Logger } from 'pino';
import { startedByHarness } from '../../harness/cluster/index.ts';
import { HarnessError } from '../../harness/base/index.ts';
import { describedProxies, ensureProxiesClean, type RunUndo } from '../nemeses/index.ts';
import type { RunBinding } from './pipeline-system.ts';
import type { RunContext, RunPlan } from './run-plan.ts';
import { createRunTables } from './run-tables.ts';
import { settleCluster } from './settle-cluster.ts';

/** The user that carries the run's setting profile, or none when it needs none; a cluster that names none cannot run it. */
function settingUser(plan: RunPlan): string | undefined {
  const profile = plan.settingProfile;
  if (profile === undefined) return undefined;
  if (profile.user === undefined)
    throw new HarnessError(
      'CHAOS_NO_SETTING_USER',
      `the cluster names no user for the setting profile ${profile.name} (setting_users); the scenario cannot run on it`,
    );
  return profile.user;
}

/**
 * Prepare: the cluster settled, no proxy left faulted, the run's database and tables made (each
 * recorded in the run's undo before it is made: the run's end drops them). Returns what every
 * spec of the run is bound to.
 */
export async function prepareRun(context: RunContext, plan: RunPlan, undo: RunUndo, log: Logger): Promise<RunBinding> {
  const user = settingUser(plan);
  const { cluster } = context;
  const revived = await settleCluster(cluster, context.journal, plan.database);
  if (revived.length > 0) log.warn({ revived }, 'cluster members were dead at the start of a run and were restarted');
  // No run may meet a fault its history does not record: a proxy left faulted is healed, or the run does not start.
  const healed = await ensureProxiesClean(
    undo.deps.proxies,
    describedProxies(cluster.description),
    startedByHarness(cluster),
  );
  if (healed.length > 0) log.warn({ healed }, 'proxies were faulted before the run and were healed');
  await undo.during(() => createRunTables(cluster.description, undo, plan));
  return { database: plan.database, user };
}
