import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import type { Observations } from './observations.ts';

/**
 * Message ids `<generation>-<partition>-<seq>` ordered as numbers, restated here rather than
 * imported from the sinks: an expectation that shared the sinks' code would share its bugs.
 */
function laterId(a: string, b: string): string {
  const parts = (id: string) => id.split('-').map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i += 1)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0) ? a : b;
  return a;
}

/** The token an INSERT of these rows must carry: the batch's largest message id, `:<shard>` when sharded. */
function expectedTokens(observations: Observations): Map<string, string> {
  const bounds = new Map<string, string>();
  const batchOf = (partition: number, batch: number) => `${partition}|${batch}`;
  for (const attempt of observations.attempts) {
    const key = batchOf(attempt.partition, attempt.batch);
    for (const id of attempt.messageIds) bounds.set(key, laterId(bounds.get(key) ?? id, id));
  }
  return new Map(
    observations.attempts.map((attempt) => {
      const bound = bounds.get(batchOf(attempt.partition, attempt.batch)) ?? '';
      return [attempt.queryId, attempt.shard === null ? bound : `${bound}:${attempt.shard}`];
    }),
  );
}

/**
 * Tokens, from what the sink did and from what ClickHouse received:
 * - one dedup token never covers two different row sets: ClickHouse drops a block whose token it
 *   has seen, so a replay that reuses a token for other rows silently loses them (a token that
 *   changes between replays of the same rows duplicates them, caught by total-queue);
 * - every INSERT the server logged carries the token the class owes it (query_log `Settings`):
 *   the batch bound for the token classes, none for the others. A token class that sends none
 *   would still look exactly-once here, its identical replays dropped by content hash; this is
 *   where it shows.
 */
export function tokenChecker(observations: Observations): CheckResult {
  const rowSets = new Map<string, Set<string>>();
  for (const attempt of observations.attempts) {
    if (attempt.dedupToken === undefined) continue;
    const key = `${attempt.shard ?? '-'}|${attempt.dedupToken}`;
    const rows = [...attempt.messageIds].sort().join(',');
    const seen = rowSets.get(key) ?? new Set<string>();
    seen.add(rows);
    rowSets.set(key, seen);
  }
  const reused = [...rowSets].filter(([, sets]) => sets.size > 1).map(([key]) => key.split('|')[1] ?? key);
  const expected = observations.sendsToken ? expectedTokens(observations) : new Map<string, string>();
  const wrong: string[] = [];
  for (const [queryId, received] of observations.serverTokens) {
    const owed = observations.sendsToken ? expected.get(queryId) : '';
    if (owed !== undefined && received !== owed) wrong.push(`${queryId} got '${received}', owed '${owed}'`);
  }
  return resultOf('token', [anomaly('token-covers-two-row-sets', reused), anomaly('token-not-as-owed', wrong)]);
}
