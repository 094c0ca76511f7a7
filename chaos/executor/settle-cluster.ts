import { queryValue, startedByHarness, type StartedCluster } from '../../harness/cluster/index.ts';
import { ClusterAdmin } from '../../harness/clickhouse/index.ts';
import { HarnessError } from '../../harness/base/index.ts';
import { requireUndone, type UndoJournal } from '../nemeses/index.ts';

const STOPPED = new Set(['member-paused', 'member-killed']);

/**
 * Brings the cluster back to health around a run. First what the harness stopped and the undo
 * journal still holds is resumed (a pause) or started (a kill): this process's entries only.
 * A member still not running was stopped by nobody the harness knows: on a cluster the harness
 * started it is revived and returned (after every fault was healed, it died on its own); on an
 * attached cluster the harness never acts on it, and the run is an infrastructure error naming
 * it. Then every replica of the run's database must have its Keeper session and no read-only
 * table (a table an earlier run left read-only is that run's finding, not a reason to fail every
 * run after it). A cluster that cannot settle is an infrastructure error, never a verdict.
 */
export async function settleCluster(
  cluster: StartedCluster,
  journal: UndoJournal,
  database: string,
  timeoutMs = 90_000,
): Promise<string[]> {
  requireUndone(await journal.undoOwn((entry) => STOPPED.has(entry.action.kind)), journal.file);
  // A started cluster allows every process action; an attached one lists what its owner allows.
  const owned = startedByHarness(cluster);
  const revived: string[] = [];
  for (const name of cluster.memberNames) {
    const state = await cluster.memberState(name);
    if (state === 'running') continue;
    if (!owned)
      throw new HarnessError(
        'CLUSTER_MEMBER_DOWN',
        `member ${name} of the attached cluster is ${state === 'unknown' ? 'not answering' : state}, and the harness did not stop it: it acts only on what it did itself; bring ${name} back, then run again`,
      );
    if (state === 'paused') await cluster.resume(name);
    else {
      revived.push(name);
      await cluster.start(name);
    }
  }
  await awaitWritableReplicas(cluster, database, timeoutMs);
  return revived;
}

/**
 * Every replica of the run's database answers, with its Keeper session and no read-only table,
 * within `timeoutMs` (a `HarnessError` naming the replica otherwise): the cluster is healthy for
 * the run's writes. A recovery's clock starts only once this holds, so a stall the cluster causes
 * is an infrastructure error, never the sink's. Every link runs through the fault proxy: while a
 * replica is not yet writable the proxy must still answer, or the wait is given up at once.
 */
export async function awaitWritableReplicas(
  cluster: Pick<StartedCluster, 'description'>,
  database: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const proxy = cluster.description.toxiproxy;
  await new ClusterAdmin(cluster.description).eachReplica(
    async ({ replica, client }) => {
      for (;;) {
        const readOnly = await queryValue<string | number>(
          client,
          `SELECT count() FROM system.replicas WHERE database = '${database}' AND (is_readonly OR is_session_expired)`,
        ).catch(() => 'unreachable');
        if (String(readOnly) === '0') return;
        if (proxy !== null && !(await faultProxyAnswers(proxy)))
          throw new HarnessError(
            'FAULT_PROXY_DOWN',
            `the fault proxy at ${proxy} does not answer while replica ${replica.name} is not writable (${readOnly}): every link of the cluster runs through it`,
          );
        if (Date.now() > deadline) {
          throw new HarnessError(
            'CLUSTER_NOT_SETTLED',
            `replica ${replica.name} still has read-only tables in ${database} (${readOnly}) ${timeoutMs} ms after healing; see its log in the run directory`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    { timeoutMs: 5000 },
  );
}

/** The fault proxy's API answers its version request, on a second try at the latest. */
export async function faultProxyAnswers(url: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const answered = await fetch(`${url}/version`, { signal: AbortSignal.timeout(2000) })
      .then((response) => response.ok)
      .catch(() => false);
    if (answered) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}
