import { describe, expect, it } from 'vitest';
import type { FaultStartEvent, Stamped } from '../../harness/flow/history/index.ts';
import type { ServerInsert } from '../../harness/oracle/index.ts';
import type { AttemptRecord, Observations } from './observations.ts';
import { serverLogChecker } from './server-log-checker.ts';
import {
  acceptedTwice,
  dedupHits,
  lostToKills,
  resolveUnknownOutcomes,
  tokensInsertedTwice,
  unloggedAttempts,
  withLogsBeforeKills,
} from './server-log.ts';

const attempt = (
  queryId: string,
  outcome: AttemptRecord['outcome'],
  messageIds: string[],
  endpoint = 'a:1',
): AttemptRecord => ({
  writer: 'w1',
  partition: 0,
  batch: 1,
  shard: null,
  endpoint,
  queryId,
  messageIds,
  outcome,
  sent: true,
  invokedAt: 100,
  startedAt: 101,
  endedAt: 120,
});
const logged = (queryId: string, finished: boolean, deduplicated = false): ServerInsert => ({
  queryId,
  replica: 'r1',
  finished,
  deduplicated,
  token: '',
});

describe('resolveUnknownOutcomes', () => {
  it('settles each unknown attempt by its own query id in the servers’ logs', () => {
    const attempts = [
      attempt('q1', 'unknown', ['m1']),
      attempt('q2', 'unknown', ['m2']),
      attempt('q3', 'ok', ['m3']),
      attempt('q4', 'unknown', ['m4'], 'b:1'),
    ];
    const resolved = resolveUnknownOutcomes(attempts, [logged('q1', true), logged('q2', false), logged('q3', true)], {
      lostLog: (attempt) => attempt.endpoint === 'b:1',
      vouched: () => true,
    });
    expect(resolved.landed.map((a) => a.queryId)).toEqual(['q1']);
    expect(resolved.absent.map((a) => a.queryId)).toEqual(['q2']);
    expect(resolved.unresolved.map((a) => a.queryId)).toEqual(['q4']);
  });

  it('counts a failed INSERT that committed a part as landed: a quorum the server could not verify', () => {
    const quorumFailed = { ...logged('q1', false), quorumWaited: true };
    const resolved = resolveUnknownOutcomes([attempt('q1', 'unknown', ['m1'])], [quorumFailed], {
      lostLog: () => false,
      vouched: () => true,
    });
    expect([resolved.landed.length, resolved.absent.length]).toEqual([1, 0]);
  });
});

describe('a missing log row is evidence only where the log vouches for the replica', () => {
  it('leaves an unknown attempt unresolved when no marker vouches for its replica’s log', () => {
    const resolved = resolveUnknownOutcomes([attempt('q1', 'unknown', ['m1'])], [], {
      lostLog: () => false,
      vouched: () => false,
    });
    expect([resolved.absent.length, resolved.unresolved.length]).toEqual([0, 1]);
  });

  it('names every attempt the server answered that its replica did not log, unless a restart wiped the log', () => {
    const attempts = [
      attempt('ok-logged', 'ok', ['m1']),
      attempt('ok-missing', 'ok', ['m2']),
      { ...attempt('refused-missing', 'failed', ['m3']), errorCode: '252' },
      { ...attempt('reset', 'unknown', ['m4']), errorCode: 'ECONNRESET' },
      attempt('ok-wiped', 'ok', ['m5'], 'b:1'),
      attempt('ok-elsewhere', 'ok', ['m6']),
    ];
    const log = [logged('ok-logged', true), { ...logged('ok-elsewhere', true), replica: 'r2' }];
    expect(
      unloggedAttempts(
        attempts,
        log,
        () => 'r1',
        (attempt) => attempt.endpoint === 'b:1',
      ),
    ).toEqual(['ok-missing (ok) on r1', 'refused-missing (failed) on r1', 'ok-elsewhere (ok) on r1']);
  });
});

/** A nemesis's `fault-start` (a replica kill unless `fault` says otherwise), as the history stores it. */
const faultStart = (at: number, targets: string[], over: Partial<FaultStartEvent> = {}): Stamped<FaultStartEvent> => ({
  type: 'fault-start',
  window: 1,
  fault: 'replica_kill',
  description: `kill(${targets.join(',')})`,
  targets,
  effect: 'blocked',
  at,
  writer: 'nemesis',
  pid: 1,
  seq: 1,
  ...over,
});

describe('lostToKills', () => {
  const replicaOf = (endpoint: string) => (endpoint === 'a:1' ? 'r1' : 'r2');

  it('takes a kill of the attempt’s replica after it began as a lost log, not one of another replica or before it', () => {
    const lost = lostToKills([faultStart(150, ['r1'])], replicaOf);
    expect(lost(attempt('q1', 'unknown', ['m1']))).toBe(true);
    expect(lost(attempt('q2', 'unknown', ['m2'], 'b:1'))).toBe(false);
    expect(lost({ ...attempt('q3', 'unknown', ['m3']), invokedAt: 151 })).toBe(false);
    const paused = lostToKills([faultStart(150, ['r1'], { fault: 'replica_pause' })], replicaOf);
    expect(paused(attempt('q4', 'unknown', ['m4']))).toBe(false);
  });

  it('keeps what the server answered before the victim’s log was read, and only that', () => {
    const lost = lostToKills([faultStart(150, ['r1'], { logBeforeKill: { askedAt: 140, inserts: [] } })], replicaOf);
    expect(lost({ ...attempt('q1', 'unknown', ['m1']), errorCode: '319' })).toBe(false);
    expect(lost(attempt('q2', 'ok', ['m2']))).toBe(false);
    expect(lost({ ...attempt('q3', 'unknown', ['m3']), errorCode: 'ECONNRESET' })).toBe(true);
    expect(lost({ ...attempt('q4', 'ok', ['m4']), endedAt: 141 })).toBe(true);
  });
});

describe('withLogsBeforeKills', () => {
  it('adds what a killed replica logged before the kill, once per replica and query, the final reading first', () => {
    const before = {
      askedAt: 140,
      inserts: [logged('q1', true), logged('q2', false), { ...logged('q3', true), replica: 'r2' }],
    };
    const merged = withLogsBeforeKills([logged('q2', true)], [faultStart(150, ['r1'], { logBeforeKill: before })]);
    expect(merged.map((insert) => [insert.replica, insert.queryId, insert.finished])).toEqual([
      ['r1', 'q2', true],
      ['r1', 'q1', true],
      ['r2', 'q3', true],
    ]);
  });
});

describe('serverLogChecker', () => {
  const observed = (over: Partial<Observations>): Observations =>
    ({
      attempts: [attempt('q1', 'ok', ['m1'])],
      serverFinished: new Map([['q1', true]]),
      unloggedAttempts: [],
      ...over,
    }) as Observations;

  it('flags an INSERT into the run’s database that no attempt of the history explains', () => {
    const result = serverLogChecker(
      observed({
        serverFinished: new Map([
          ['q1', true],
          ['unrecorded-query', true],
        ]),
      }),
    );
    expect(result.verdict).toBe('violation');
    expect(result.anomalies).toEqual([{ category: 'unrecorded-insert', count: 1, examples: ['unrecorded-query'] }]);
  });

  it('makes a run whose log lacks an answered attempt infra-error, with the reason, never a pass', () => {
    const result = serverLogChecker(observed({ unloggedAttempts: ['q1 (ok) on r1'] }));
    expect(result.verdict).toBe('infra-error');
    expect(result.notes?.[0]).toContain('query_log is incomplete: 1 INSERT(s) the server answered are missing');
    expect(serverLogChecker(observed({})).verdict).toBe('pass');
  });
});

describe('acceptedTwice', () => {
  it('finds messages two finished INSERTs carried, whether or not the server dropped one as a duplicate', () => {
    const attempts = [
      attempt('q1', 'unknown', ['m1', 'm2']),
      attempt('q2', 'ok', ['m1', 'm2']),
      attempt('q3', 'ok', ['m3']),
      attempt('q4', 'failed', ['m3']),
    ];
    const log = [logged('q1', true), logged('q2', true, true), logged('q3', true), logged('q4', false)];
    expect([...acceptedTwice(attempts, log)].sort()).toEqual(['m1', 'm2']);
    expect(dedupHits(log)).toBe(1);
  });
});

describe('tokensInsertedTwice', () => {
  const insert = (queryId: string, token: string, finished = true, deduplicated = false): ServerInsert => ({
    queryId,
    replica: 's1r1',
    finished,
    deduplicated,
    token,
  });

  it('counts a token ClickHouse took twice: its replay came after the dedup window', () => {
    expect(tokensInsertedTwice([insert('q1', '1-0-9'), insert('q2', '1-0-9')])).toBe(1);
  });

  it('counts the part a failed quorum INSERT committed, then an undeduplicated replay of its token', () => {
    expect(tokensInsertedTwice([{ ...insert('q1', '1-0-9', false), quorumWaited: true }, insert('q2', '1-0-9')])).toBe(
      1,
    );
  });

  it('ignores a replay it deduplicated, a failed one, and INSERTs without a token', () => {
    expect(
      tokensInsertedTwice([
        insert('q1', '1-0-9'),
        insert('q2', '1-0-9', true, true),
        insert('q3', '1-0-9', false),
        insert('q4', ''),
        insert('q5', ''),
      ]),
    ).toBe(0);
  });
});
