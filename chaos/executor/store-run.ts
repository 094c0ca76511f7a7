import { join } from 'node:path';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { dumpSystemTables } from '../../harness/oracle/index.ts';
import { writeCheckRecord } from './check-record.ts';
import type { JudgedRun } from './judge-run.ts';
import type { RunPlan } from './run-plan.ts';
import { writeSignatureFile } from './signature-file.ts';

/**
 * Store: everything the check read and its verdict in the run's directory (`npm run check`
 * judges it again from files), the history's signature (what a replay of its `schedule.json`
 * must reproduce), and, for a run that did not pass, the replicas' system tables.
 */
export async function storeRun(description: ClusterDescription, plan: RunPlan, judged: JudgedRun): Promise<void> {
  const { check } = judged;
  writeCheckRecord(plan.dir, {
    scenario: plan.scenario.name,
    phase: plan.phase,
    input: judged.input,
    verdict: check.verdict,
    anomalies: check.results.flatMap((result) => result.anomalies),
  });
  writeSignatureFile(plan.dir, judged.input.events);
  if (check.verdict !== 'pass') await dumpSystemTables(description, plan.database, join(plan.dir, 'system-tables'));
}
