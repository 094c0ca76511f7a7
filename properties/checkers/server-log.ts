import type { ServerInsert } from '../../harness/oracle/ground-truth.ts';
import type { AttemptRecord } from './observations.ts';

export interface UnknownResolution {
  /**
   * The server finished the INSERT (it committed, or was dropped as a duplicate), or committed its
   * part and then failed to verify its quorum, and the sink never heard.
   */
  readonly landed: readonly AttemptRecord[];
  /** The server never finished it: the request never arrived, or failed there. */
  readonly absent: readonly AttemptRecord[];
  /** Its replica was restarted afterwards and lost its query_log: neither can be told. */
  readonly unresolved: readonly AttemptRecord[];
}

/** INSERTs whose rows reached the server's table, or were dropped there as a duplicate. */
const landedQueries = (serverInserts: readonly ServerInsert[]): Set<string> =>
  new Set(
    serverInserts.filter((insert) => insert.finished || insert.quorumWaited === true).map((insert) => insert.queryId),
  );

/**
 * Resolves every unknown-outcome attempt against the servers' own logs (Jepsen's indeterminate
 * ops, settled after the fact): by query id, which is unique per attempt. `lostLogAfter` says
 * whether the attempt's replica was restarted after a moment (its log of that time is gone).
 */
export function resolveUnknownOutcomes(
  attempts: readonly AttemptRecord[],
  serverInserts: readonly ServerInsert[],
  lostLogAfter: (endpoint: string, at: number) => boolean,
): UnknownResolution {
  const finished = landedQueries(serverInserts);
  const landed: AttemptRecord[] = [];
  const absent: AttemptRecord[] = [];
  const unresolved: AttemptRecord[] = [];
  for (const attempt of attempts) {
    if (attempt.outcome !== 'unknown') continue;
    if (finished.has(attempt.queryId)) landed.push(attempt);
    else if (lostLogAfter(attempt.endpoint, attempt.invokedAt)) unresolved.push(attempt);
    else absent.push(attempt);
  }
  return { landed, absent, unresolved };
}

/**
 * Messages that two different finished INSERTs carried: the server accepted each of them twice,
 * whether it then wrote a second row or dropped the block as a duplicate.
 */
export function acceptedTwice(attempts: readonly AttemptRecord[], serverInserts: readonly ServerInsert[]): Set<string> {
  const finished = landedQueries(serverInserts);
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const attempt of attempts) {
    if (!finished.has(attempt.queryId)) continue;
    for (const id of attempt.messageIds) {
      if (seen.has(id)) twice.add(id);
      seen.add(id);
    }
  }
  return twice;
}

/** INSERTs the server dropped (a block of them) as duplicates, each counted once. */
export function dedupHits(serverInserts: readonly ServerInsert[]): number {
  return new Set(serverInserts.filter((insert) => insert.deduplicated).map((insert) => insert.queryId)).size;
}

/** Dedup tokens more than one INSERT carried into the table un-deduplicated: their replay came after the window. */
export function tokensInsertedTwice(serverInserts: readonly ServerInsert[]): number {
  const inserted = new Map<string, Set<string>>();
  for (const insert of serverInserts) {
    if (insert.token === '' || !(insert.finished || insert.quorumWaited === true) || insert.deduplicated) continue;
    inserted.set(insert.token, (inserted.get(insert.token) ?? new Set()).add(insert.queryId));
  }
  return [...inserted.values()].filter((queries) => queries.size > 1).length;
}
