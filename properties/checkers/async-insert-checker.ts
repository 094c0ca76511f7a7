import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import type { Observations } from './observations.ts';

/**
 * The async-insert settings every INSERT the server logged ran under, against the spec in force
 * when its attempt started (either, while a live reconfiguration was being taken; `sink-family.md` §6): `async_insert` as the spec says, sent
 * explicitly since the server's default is on; when on, `wait_for_async_insert` (without it the
 * server answers before the rows are written, and an acknowledged row can still be lost) and, for
 * the token classes, `async_insert_deduplicate` (without it an async INSERT is never
 * deduplicated, and a replay lands twice). Judged on the server's side, so it holds on a backend
 * that runs async inserts synchronously, where neither omission changes the rows.
 */
export function asyncInsertChecker(observations: Observations): CheckResult {
  const wrong: string[] = [];
  for (const [queryId, got] of observations.serverAsyncSettings) {
    const allowed = observations.asyncInsertAllowed.get(queryId);
    if (allowed === undefined) continue;
    const problems: string[] = [];
    if (!allowed.includes(got.asyncInsert))
      problems.push(`async_insert ${Number(got.asyncInsert)}, owed ${allowed.map(Number).join(' or ')}`);
    // What an async INSERT owes holds whichever spec asked for it.
    const ranAsync = got.asyncInsert && allowed.includes(true);
    if (ranAsync && !got.waitForAsyncInsert) problems.push('wait_for_async_insert 0, owed 1');
    if (ranAsync && observations.sendsToken && !got.asyncInsertDeduplicate)
      problems.push('async_insert_deduplicate 0, owed 1');
    if (problems.length > 0) wrong.push(`${queryId}: ${problems.join(', ')}`);
  }
  return resultOf('async-insert', [anomaly('async-insert-not-as-owed', wrong)]);
}
