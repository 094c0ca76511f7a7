import { describe, expect, it } from 'vitest';
import { giveUpChecker, seedErrorClass } from './give-up-checker.ts';
import { totalQueueChecker } from './total-queue-checker.ts';
import type { AttemptRecord, GiveUpRecord, Observations } from './observations.ts';

const attempt = (n: number, over: Partial<AttemptRecord> = {}): AttemptRecord => ({
  writer: 'w1',
  partition: 0,
  batch: 1,
  shard: null,
  endpoint: 'a:1',
  queryId: `q${n}`,
  messageIds: ['1-0-0', '1-0-1'],
  outcome: 'failed',
  sent: true,
  errorCode: '252',
  invokedAt: n * 10,
  startedAt: n * 10 + 1,
  endedAt: n * 10 + 5,
  ...over,
});

const giveUp = (attempts: readonly AttemptRecord[], over: Partial<GiveUpRecord> = {}): GiveUpRecord => ({
  writer: 'w1',
  partition: 0,
  batch: 1,
  at: 1000,
  message: 'Giving up insert into ClickHouse',
  code: 'SINK_INSERT_GAVE_UP',
  attempts,
  messageIds: ['1-0-0', '1-0-1'],
  budget: { fewest: 3, most: 3 },
  final: true,
  ...over,
});

const observations = (giveUps: GiveUpRecord[], over: Partial<Observations> = {}): Observations => ({
  guarantee: 'exactly-once',
  attempts: giveUps.flatMap((g) => g.attempts),
  acknowledged: new Set(['1-0-0', '1-0-1']),
  produced: new Set(['1-0-0', '1-0-1']),
  altered: new Set(),
  replicas: [{ shard: 's1', replica: 's1r1', counts: new Map() }],
  viaDistributed: new Map(),
  acceptedTwice: new Set(),
  expectedShards: () => null,
  refusals: [],
  expectedRefusals: [],
  sendsToken: true,
  serverTokens: new Map(),
  serverAsyncSettings: new Map(),
  asyncInsertAllowed: new Map(),
  serverFinished: new Map(),
  unloggedAttempts: [],
  giveUps,
  writesAfterGiveUp: [
    { partition: 0, batch: 1, refused: true, error: 'This ClickHouse sink instance gave up an insert' },
  ],
  deliveredIds: new Set(),
  reconfigureFailures: [],
  epochFailures: [],
  pendingDropped: [],
  recoveries: [],
  ...over,
});

const categories = (o: Observations) => giveUpChecker(o).anomalies.map((a) => a.category);
const three = [attempt(1), attempt(2), attempt(3)];

describe('the seed class of a recorded attempt', () => {
  it('reads server codes as unclassified unless they report the transport, sockets as transient, certificates as permanent', () => {
    expect(seedErrorClass(attempt(1, { errorCode: '252' }))).toBe('unclassified');
    expect(seedErrorClass(attempt(1, { errorCode: '319', outcome: 'unknown' }))).toBe('unclassified');
    expect(seedErrorClass(attempt(1, { errorCode: '209' }))).toBe('transient');
    expect(seedErrorClass(attempt(1, { errorCode: 'ECONNREFUSED' }))).toBe('transient');
    expect(seedErrorClass(attempt(1, { errorCode: undefined, outcome: 'unknown' }))).toBe('transient');
    expect(seedErrorClass(attempt(1, { errorCode: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toBe('permanent');
    expect(seedErrorClass(attempt(1, { errorCode: undefined }))).toBeUndefined();
  });
});

describe('giveUpChecker', () => {
  it('passes a give-up after max_insert_attempts unclassified failures, refused afterwards, and notes it', () => {
    const result = giveUpChecker(observations([giveUp(three)]));
    expect(result.verdict).toBe('pass');
    expect(result.notes?.[0]).toContain('gave up: partition 0 batch 1 after 3 attempt(s)');
  });

  it('flags a give-up before the budget, on a transient error, with another text, or without any attempt', () => {
    expect(categories(observations([giveUp(three.slice(0, 2))]))).toEqual(['give-up-early']);
    expect(categories(observations([giveUp([...three.slice(0, 2), attempt(3, { errorCode: 'ECONNRESET' })])]))).toEqual(
      ['give-up-on-transient'],
    );
    expect(categories(observations([giveUp(three, { message: 'insert failed' })]))).toEqual(['give-up-text']);
    expect(categories(observations([giveUp([])]))).toEqual(['give-up-without-attempt']);
  });

  it('flags a give-up after retries the budget did not allow, and allows transient failures past it', () => {
    expect(categories(observations([giveUp([...three, attempt(4)])]))).toEqual(['give-up-late']);
    const transientThird = [attempt(1), attempt(2), attempt(3, { errorCode: 'ECONNRESET' }), attempt(4)];
    expect(categories(observations([giveUp(transientThird)]))).toEqual([]);
    expect(categories(observations([giveUp([...three, attempt(4)], { budget: { fewest: 3, most: 4 } })]))).toEqual([]);
  });

  it('judges a give-up by the attempts the history recorded: a "permanent" claim with none allows nothing', () => {
    const claim = {
      errorClass: 'permanent',
      attempts: 0,
      reason: 'permanent error, not retried',
      lastError: 'value too long',
    };
    expect(categories(observations([giveUp([], { claim })]))).toEqual(['give-up-without-attempt']);
  });

  it('flags an instance that took a write after it gave up', () => {
    expect(
      categories(observations([giveUp(three)], { writesAfterGiveUp: [{ partition: 0, batch: 1, refused: false }] })),
    ).toEqual(['write-after-give-up']);
  });
});

describe('rows held back by a give-up', () => {
  it('are gave-up, not lost, when the run ended with the partition stopped; lost otherwise', () => {
    const stopped = totalQueueChecker(observations([giveUp(three)]));
    expect(stopped.counts).toMatchObject({ lost: 0, gaveUp: 2 });
    expect(stopped.verdict).toBe('pass');
    const restarted = totalQueueChecker(observations([giveUp(three, { final: false })]));
    expect(restarted.counts).toMatchObject({ lost: 2, gaveUp: 0 });
    expect(restarted.verdict).toBe('violation');
  });

  it('are only the rows from the batch it gave up on: an earlier row, or one of a delivered batch, is lost', () => {
    const acknowledged = new Set(['1-0-0', '1-0-1', '1-0-2', '1-0-3']);
    const later = giveUp(three, { batch: 2, messageIds: ['1-0-2', '1-0-3'] });
    const earlierMissing = totalQueueChecker(observations([later], { acknowledged, produced: acknowledged }));
    expect(earlierMissing.lostIds).toEqual(['1-0-0', '1-0-1']);
    expect(earlierMissing.gaveUpIds).toEqual(['1-0-2', '1-0-3']);
    const delivered = totalQueueChecker(
      observations([later], { acknowledged, produced: acknowledged, deliveredIds: new Set(['1-0-3']) }),
    );
    expect(delivered.lostIds).toEqual(['1-0-0', '1-0-1', '1-0-3']);
    expect(delivered.verdict).toBe('violation');
  });
});
