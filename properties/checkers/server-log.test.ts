import { describe, expect, it } from 'vitest';
import type { ServerInsert } from '../../harness/oracle/ground-truth.ts';
import type { AttemptRecord } from './observations.ts';
import { acceptedTwice, dedupHits, resolveUnknownOutcomes, tokensInsertedTwice } from './server-log.ts';

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
    const resolved = resolveUnknownOutcomes(
      attempts,
      [logged('q1', true), logged('q2', false), logged('q3', true)],
      (endpoint) => endpoint === 'b:1',
    );
    expect(resolved.landed.map((a) => a.queryId)).toEqual(['q1']);
    expect(resolved.absent.map((a) => a.queryId)).toEqual(['q2']);
    expect(resolved.unresolved.map((a) => a.queryId)).toEqual(['q4']);
  });

  it('counts a failed INSERT that committed a part as landed: a quorum the server could not verify', () => {
    const quorumFailed = { ...logged('q1', false), quorumWaited: true };
    const resolved = resolveUnknownOutcomes([attempt('q1', 'unknown', ['m1'])], [quorumFailed], () => false);
    expect([resolved.landed.length, resolved.absent.length]).toEqual([1, 0]);
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
