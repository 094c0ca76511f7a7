import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { storedColumns } from '../../harness/flow/index.ts';
import { collectGroundTruth, type GroundTruth } from '../../harness/oracle/index.ts';
import { routingLayouts, type SpecPeriod } from '../../properties/judge/index.ts';
import type { RunPlan } from './run-plan.ts';
import { singleHosts, VIEW_TABLE } from './target-table.ts';

/**
 * Observe: what ClickHouse holds once the run settled (every replica read directly, the `_dist`
 * union, each replica's query_log of the run's INSERTs), read as the run's target lays it out and
 * routed by every spec the run was under.
 */
export function observeRun(
  description: ClusterDescription,
  plan: RunPlan,
  specs: readonly SpecPeriod[],
): Promise<GroundTruth> {
  return collectGroundTruth(description, {
    database: plan.database,
    table: plan.table,
    layouts: routingLayouts(specs),
    singleHosts: singleHosts(description, plan.target),
    columns: storedColumns(plan.source),
    ...(plan.target === 'replicated-with-view' ? { view: VIEW_TABLE } : {}),
  });
}
