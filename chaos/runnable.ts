import { type StartedCluster, startedByHarness } from '../harness/cluster/index.ts';
import type { ScenarioDefinition } from './scenarios/index.ts';

/** Keeper members a cluster needs for a scenario: most need one; an ensemble scenario asks for more. */
export const keepersFor = (scenario: ScenarioDefinition): number => scenario.keepers ?? 1;

/**
 * Why a scenario cannot run on this cluster without being half-run (one line, the scenario is
 * then `inconclusive` with it), or undefined when it can: a process action, a setting user, Keeper
 * members, shards or replicas per shard the cluster lacks, or node-wide faults on a cluster it did not start.
 */
export function whyNotRunnable(
  scenario: ScenarioDefinition,
  cluster: Pick<StartedCluster, 'description' | 'processActions'>,
): string | undefined {
  const lacking = (scenario.processActions ?? []).filter(
    (action) => cluster.processActions !== undefined && !cluster.processActions.has(action),
  );
  if (lacking.length > 0)
    return `not run: the cluster gives no way to ${lacking.join(' / ')} a member (process_commands in the cluster file)`;
  const lackingUsers = [
    ...new Set(
      [false, true]
        .map((dedupOff) => scenario.settingProfile?.(dedupOff))
        .filter((profile) => profile !== undefined && cluster.description.setting_users?.[profile] === undefined),
    ),
  ];
  if (lackingUsers.length > 0)
    return `not run: the cluster names no user for the setting profile(s) ${lackingUsers.join(', ')} (setting_users in the cluster file)`;
  if (cluster.description.keepers.length < keepersFor(scenario))
    return `not run: its faults need ${keepersFor(scenario)} Keeper members, the cluster has ${cluster.description.keepers.length}`;
  const shards = cluster.description.shards.length;
  if (shards < (scenario.shards ?? 1))
    return `not run: its changes need ${scenario.shards} shards, the cluster has ${shards}`;
  const needed = scenario.replicasPerShard ?? 1;
  const thin = cluster.description.shards.filter((shard) => shard.replicas.length < needed);
  if (thin.length > 0)
    return `not run: its faults need ${needed} replicas in every shard, and ${thin.map((shard) => `${shard.name} has ${shard.replicas.length}`).join(', ')}`;
  if (scenario.ownedClusterOnly === true && !startedByHarness(cluster))
    return 'not run: its faults are node-wide (server failpoints), armed only on a cluster the harness started, never on an attached one';
  return undefined;
}
