import { eventsOfType, type Stamped } from '../../harness/flow/history/index.ts';
import type { ServerInsert } from '../../harness/oracle/index.ts';
import type { AttemptRecord } from './observations.ts';

export interface UnknownResolution {
  /**
   * The server finished the INSERT (it committed, or was dropped as a duplicate), or committed its
   * part and then failed to verify its quorum, and the sink never heard.
   */
  readonly landed: readonly AttemptRecord[];
  /**
   * The server never finished it (the request never arrived, or failed there), shown by a log
   * that vouches for its replica: the oracle's marker is in it, and no restart wiped it since.
   */
  readonly absent: readonly AttemptRecord[];
  /** No log vouches for its replica (restarted afterwards, or the marker missing): neither can be told. */
  readonly unresolved: readonly AttemptRecord[];
}

/** INSERTs whose rows reached the server's table, or were dropped there as a duplicate. */
const landedQueries = (serverInserts: readonly ServerInsert[]): Set<string> =>
  new Set(
    serverInserts.filter((insert) => insert.finished || insert.quorumWaited === true).map((insert) => insert.queryId),
  );

/**
 * Whether an attempt's replica still had its query_log of the attempt when the oracle read it:
 * `vouched` (the oracle's marker query is in the replica's log) and not wiped since (`lostLog`:
 * a restarted node starts with an empty log).
 */
export interface LogCover {
  readonly lostLog: (attempt: AttemptRecord) => boolean;
  readonly vouched: (endpoint: string) => boolean;
}

/** The server answered it: `ok`, or an error with a ClickHouse code. Its replica must have logged it. */
const answeredByServer = (attempt: AttemptRecord) =>
  attempt.outcome === 'ok' || (attempt.errorCode !== undefined && /^\d+$/.test(attempt.errorCode));

/** The run's replica kills (their `fault-start`s): each wiped its victim's logs. */
const replicaKills = (events: readonly Stamped[]) =>
  eventsOfType(events, 'fault-start').filter((start) => start.fault === 'replica_kill');

/**
 * Whether a kill of an attempt's replica after the attempt began wiped its log entry: not when the
 * victim's log was read before the kill and the server had answered the attempt by then (it is in
 * that reading); otherwise it may have.
 */
export function lostToKills(
  events: readonly Stamped[],
  replicaOf: (endpoint: string) => string | undefined,
): LogCover['lostLog'] {
  const kills = replicaKills(events);
  return (attempt) =>
    kills.some(
      (kill) =>
        kill.at >= attempt.invokedAt &&
        kill.targets.includes(replicaOf(attempt.endpoint) ?? '') &&
        !(
          kill.logBeforeKill !== undefined &&
          answeredByServer(attempt) &&
          attempt.endedAt < kill.logBeforeKill.askedAt
        ),
    );
}

/**
 * The replicas' logs as the oracle read them at the end, with what a killed replica had logged
 * before the kill wiped it: each INSERT once per replica, the oracle's reading first.
 */
export function withLogsBeforeKills(
  serverInserts: readonly ServerInsert[],
  events: readonly Stamped[],
): ServerInsert[] {
  const key = (insert: ServerInsert) => `${insert.replica}|${insert.queryId}`;
  const seen = new Set(serverInserts.map(key));
  const merged = [...serverInserts];
  for (const insert of replicaKills(events).flatMap((kill) => kill.logBeforeKill?.inserts ?? [])) {
    if (seen.has(key(insert))) continue;
    seen.add(key(insert));
    merged.push(insert);
  }
  return merged;
}

/**
 * Resolves every unknown-outcome attempt against the servers' own logs (Jepsen's indeterminate
 * ops, settled after the fact): by query id, which is unique per attempt. A missing row is
 * `absent` only where the log vouches for the attempt's time; a missing log is no evidence.
 */
export function resolveUnknownOutcomes(
  attempts: readonly AttemptRecord[],
  serverInserts: readonly ServerInsert[],
  cover: LogCover,
): UnknownResolution {
  const finished = landedQueries(serverInserts);
  const landed: AttemptRecord[] = [];
  const absent: AttemptRecord[] = [];
  const unresolved: AttemptRecord[] = [];
  for (const attempt of attempts) {
    if (attempt.outcome !== 'unknown') continue;
    if (finished.has(attempt.queryId)) landed.push(attempt);
    else if (cover.lostLog(attempt) || !cover.vouched(attempt.endpoint)) unresolved.push(attempt);
    else absent.push(attempt);
  }
  return { landed, absent, unresolved };
}

/**
 * Attempts the server answered that their replica's query_log lacks, though no restart wiped it:
 * the log is incomplete, and every check that reads it would see less than happened. Each is
 * named with its replica (`replicaOf`: the replica behind an attempt's endpoint).
 */
export function unloggedAttempts(
  attempts: readonly AttemptRecord[],
  serverInserts: readonly ServerInsert[],
  replicaOf: (endpoint: string) => string | undefined,
  lostLog: LogCover['lostLog'],
): string[] {
  const logged = new Set(serverInserts.map((insert) => `${insert.replica}|${insert.queryId}`));
  return attempts
    .filter((attempt) => answeredByServer(attempt) && !lostLog(attempt))
    .flatMap((attempt) => {
      const replica = replicaOf(attempt.endpoint);
      if (replica === undefined)
        return [`${attempt.queryId} (${attempt.outcome}) went to ${attempt.endpoint}, no replica the oracle read`];
      return logged.has(`${replica}|${attempt.queryId}`)
        ? []
        : [`${attempt.queryId} (${attempt.outcome}) on ${replica}`];
    });
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
