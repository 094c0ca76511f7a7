import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import type { Observations } from './observations.ts';

/**
 * One dedup token never covers two different row sets. ClickHouse drops a block whose token it
 * has seen, so a replay that reuses a token for other rows silently loses them — and a token
 * that changes between replays of the same rows duplicates them (caught by total-queue).
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
  return resultOf('token', [anomaly('token-covers-two-row-sets', reused)]);
}
