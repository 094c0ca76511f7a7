import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeliveryGuarantee } from '../../sinks/index.ts';
import { checkScenario } from './check-scenario.ts';
import type { Coverage, Evidence } from './coverage-checker.ts';
import { NO_EVIDENCE } from './coverage-ledger.ts';
import { NO_SIGHTINGS } from './sometimes-events.ts';
import type { AttemptRecord, Observations, ReplicaTruth } from './observations.ts';

/** A clean history: `n` messages over 2 shards x 2 replicas, every batch inserted once and acknowledged. */
function cleanObservations(
  n: number,
  guarantee: DeliveryGuarantee = 'exactly-once',
): Observations & { replicas: ReplicaTruth[]; attempts: AttemptRecord[] } {
  const ids = Array.from({ length: n }, (_, seq) => `1-0-${seq}`);
  const shardOf = (id: string) => (Number(id.split('-')[2]) % 2 === 0 ? 's1' : 's2');
  const attempts: AttemptRecord[] = ['s1', 's2'].map((shard, index) => ({
    writer: 'w1',
    partition: 0,
    batch: 1,
    shard,
    endpoint: `127.0.0.1:${8000 + index}`,
    dedupToken: `1-0-${n - 1}:${shard}`,
    queryId: `q-${shard}`,
    messageIds: ids.filter((id) => shardOf(id) === shard),
    outcome: 'ok',
    sent: true,
    invokedAt: 9,
    startedAt: 10,
    endedAt: 20,
  }));
  const replicas: ReplicaTruth[] = ['s1r1', 's1r2', 's2r1', 's2r2'].map((replica) => {
    const shard = replica.slice(0, 2);
    return { shard, replica, counts: new Map(ids.filter((id) => shardOf(id) === shard).map((id) => [id, 1])) };
  });
  return {
    guarantee,
    attempts,
    acknowledged: new Set(ids),
    produced: new Set(ids),
    altered: new Set(),
    replicas,
    viaDistributed: new Map(ids.map((id) => [id, 1])),
    acceptedTwice: new Set(),
    expectedShards: (id: string) => [shardOf(id)],
    refusals: [],
    expectedRefusals: [],
    sendsToken: guarantee === 'exactly-once',
    serverTokens: new Map(
      attempts.map((attempt) => [attempt.queryId, guarantee === 'exactly-once' ? (attempt.dedupToken ?? '') : '']),
    ),
    serverFinished: new Map(attempts.map((attempt) => [attempt.queryId, true])),
    serverAsyncSettings: new Map(
      attempts.map((attempt) => [
        attempt.queryId,
        { asyncInsert: false, waitForAsyncInsert: true, asyncInsertDeduplicate: false },
      ]),
    ),
    asyncInsertAllowed: new Map(attempts.map((attempt) => [attempt.queryId, [false]])),
    unloggedAttempts: [],
    giveUps: [],
    writesAfterGiveUp: [],
    deliveredIds: new Set(),
    reconfigureFailures: [],
    epochFailures: [],
    pendingDropped: [],
    recoveries: [],
  };
}

const coverage: Coverage = { faults: ['reset_peer'], unknownLanded: true };
const evidence: Evidence = {
  ...NO_EVIDENCE,
  faultsFired: new Map([['reset_peer', 1]]),
  unknownOutcomes: 1,
  sightings: { ...NO_SIGHTINGS, unknownLanded: 1, replay: 1, dedupHit: 1 },
};

const setCount = (truth: ReplicaTruth, id: string, count: number) =>
  (truth.counts as Map<string, number>).set(id, count);
const everyReplicaOf = (o: Observations, shard: string) => o.replicas.filter((r) => r.shard === shard);

/** What `_dist` shows once the planted change is real on every replica: the sum over shards. */
function syncDistributed(o: ReturnType<typeof cleanObservations>): void {
  const dist = o.viaDistributed as Map<string, number>;
  dist.clear();
  for (const replica of o.replicas.filter((r) => r.replica.endsWith('r1'))) {
    for (const [id, count] of replica.counts) dist.set(id, (dist.get(id) ?? 0) + count);
  }
}

type Plant = (o: ReturnType<typeof cleanObservations>, id: string) => void;
const PLANTS: Record<string, { plant: Plant; flagged: string }> = {
  lost: {
    plant: (o, id) =>
      everyReplicaOf(o, o.expectedShards(id)?.[0] ?? 's1').forEach((r) => (r.counts as Map<string, number>).delete(id)),
    flagged: 'lost',
  },
  duplicated: {
    plant: (o, id) => everyReplicaOf(o, o.expectedShards(id)?.[0] ?? 's1').forEach((r) => setCount(r, id, 2)),
    flagged: 'duplicated',
  },
  unexpected: { plant: (o) => everyReplicaOf(o, 's1').forEach((r) => setCount(r, '9-9-9', 1)), flagged: 'unexpected' },
  altered: { plant: (o, id) => (o.altered as Set<string>).add(id), flagged: 'unexpected' },
  diverged: {
    plant: (o, id) => setCount(everyReplicaOf(o, o.expectedShards(id)?.[0] ?? 's1')[1]!, id, 0),
    flagged: 'diverged:',
  },
  misplaced: {
    plant: (o, id) => {
      const other = o.expectedShards(id)?.[0] === 's1' ? 's2' : 's1';
      everyReplicaOf(o, other).forEach((r) => setCount(r, id, 1));
      everyReplicaOf(o, o.expectedShards(id)?.[0] ?? 's1').forEach((r) => (r.counts as Map<string, number>).delete(id));
    },
    flagged: 'misplaced',
  },
  tokenReuse: {
    plant: (o, id) => o.attempts.push({ ...o.attempts[0]!, queryId: 'replay', messageIds: [id, '1-0-99999'] }),
    flagged: 'token-covers-two-row-sets',
  },
};

describe('checkers on a clean history', () => {
  it.each(['exactly-once', 'at-least-once', 'at-most-once'] as const)(
    '%s passes with its coverage met',
    (guarantee) => {
      const check = checkScenario(cleanObservations(20, guarantee), coverage, evidence);
      expect(check.verdict).toBe('pass');
      expect(check.counts).toEqual({
        attempted: 20,
        acknowledged: 20,
        lost: 0,
        duplicated: 0,
        unexpected: 0,
        recovered: 0,
        gaveUp: 0,
      });
    },
  );

  it('is inconclusive, never a pass, when a declared fault never fired', () => {
    const check = checkScenario(cleanObservations(5), coverage, { ...evidence, faultsFired: new Map() });
    expect(check.verdict).toBe('inconclusive');
    expect(check.results.find((r) => r.checker === 'coverage')?.notes).toEqual([
      'fault reset_peer never met an INSERT',
    ]);
  });

  it('is inconclusive when a declared reconfiguration never met an INSERT in flight', () => {
    const declared: Coverage = { ...coverage, reconfiguredInFlight: true };
    expect(
      checkScenario(cleanObservations(5), declared, evidence).results.find((r) => r.checker === 'coverage')?.notes,
    ).toEqual(['no reconfiguration met an INSERT in flight']);
    expect(
      checkScenario(cleanObservations(5), declared, {
        ...evidence,
        sightings: { ...evidence.sightings, reconfiguredInFlight: 1 },
      }).verdict,
    ).toBe('pass');
  });

  it('is inconclusive when a declared queue overflow never happened', () => {
    const declared: Coverage = { ...coverage, queueDrop: true };
    expect(
      checkScenario(cleanObservations(5, 'at-most-once'), declared, evidence).results.find(
        (r) => r.checker === 'coverage',
      )?.notes,
    ).toEqual(['the at-most-once queue never overflowed']);
    expect(
      checkScenario(cleanObservations(5, 'at-most-once'), declared, {
        ...evidence,
        sightings: { ...evidence.sightings, queueDrop: 2 },
      }).verdict,
    ).toBe('pass');
  });

  it('counts an unknown-outcome insert that landed as recovered, not as an anomaly', () => {
    const o = cleanObservations(6);
    o.attempts[0] = { ...o.attempts[0]!, outcome: 'unknown' };
    const check = checkScenario(o, coverage, evidence);
    expect(check.verdict).toBe('pass');
    expect(check.counts.recovered).toBe(3);
  });
});

describe('planted anomalies are flagged in the right category (seeded property)', () => {
  for (const [name, { plant, flagged }] of Object.entries(PLANTS)) {
    it(`${name} → ${flagged}`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 2, max: 60 }), fc.nat(), (n, pick) => {
          const o = cleanObservations(n);
          plant(o, `1-0-${pick % n}`);
          if (name !== 'diverged') syncDistributed(o);
          const check = checkScenario(o, coverage, evidence);
          expect(check.verdict).toBe('violation');
          const categories = check.results.flatMap((r) => r.anomalies.map((a) => a.category));
          expect(categories.some((category) => category.startsWith(flagged))).toBe(true);
        }),
        { seed: 20261129, numRuns: 50 },
      );
    });
  }

  it('at-least-once tolerates duplicates but not loss; at-most-once tolerates loss but not duplicates', () => {
    const planted = (guarantee: DeliveryGuarantee, plant: 'lost' | 'duplicated') => {
      const o = cleanObservations(4, guarantee);
      PLANTS[plant]!.plant(o, '1-0-1');
      syncDistributed(o);
      return o;
    };
    const dupAlo = planted('at-least-once', 'duplicated');
    expect(checkScenario(dupAlo, coverage, evidence).results.find((r) => r.checker === 'total-queue')?.verdict).toBe(
      'pass',
    );
    const lostAlo = planted('at-least-once', 'lost');
    expect(checkScenario(lostAlo, coverage, evidence).verdict).toBe('violation');
    const lostAmo = planted('at-most-once', 'lost');
    expect(checkScenario(lostAmo, coverage, evidence).verdict).toBe('pass');
    const dupAmo = planted('at-most-once', 'duplicated');
    expect(checkScenario(dupAmo, coverage, evidence).verdict).toBe('violation');
  });

  it('flags an INSERT the server received without the token the class owes it, or with one it does not owe', () => {
    const noToken = {
      ...cleanObservations(4),
      serverTokens: new Map([
        ['q-s1', ''],
        ['q-s2', '1-0-3:s2'],
      ]),
    };
    const check = checkScenario(noToken, coverage, evidence);
    expect(check.verdict).toBe('violation');
    expect(check.results.flatMap((r) => r.anomalies)).toEqual([
      { category: 'token-not-as-owed', count: 1, examples: ["q-s1 got '', owed '1-0-3:s1'"] },
    ]);
    const tokenless = { ...cleanObservations(4, 'at-least-once'), serverTokens: new Map([['q-s1', 'x']]) };
    expect(
      checkScenario(tokenless, coverage, evidence)
        .results.flatMap((r) => r.anomalies)
        .map((a) => a.category),
    ).toEqual(['token-not-as-owed']);
  });

  it('counts a message the server accepted twice as duplicated even when its block dedup kept one row', () => {
    const hidden = (guarantee: DeliveryGuarantee) => ({
      ...cleanObservations(4, guarantee),
      acceptedTwice: new Set(['1-0-2']),
    });
    const amo = checkScenario(hidden('at-most-once'), coverage, evidence);
    expect(amo.verdict).toBe('violation');
    expect(amo.results.flatMap((r) => r.anomalies).find((a) => a.category === 'duplicated')?.examples).toEqual([
      '1-0-2',
    ]);
    expect(
      checkScenario(hidden('at-least-once'), coverage, evidence).results.find((r) => r.checker === 'total-queue')
        ?.verdict,
    ).toBe('pass');
    expect(checkScenario(hidden('at-least-once'), coverage, evidence).counts.duplicated).toBe(1);
  });
});

describe('topology guard checker', () => {
  const prefix =
    'Refusing to start the ClickHouse sink: the shard topology changed while 2 batch(es) are still undelivered';
  const details = ['    persisted_topology_fingerprint = unsharded', '    oldest_undelivered_batch_bound = 1-0-9'];
  const message = [
    `${prefix}; replaying them ...`,
    details[0],
    '    spec_topology_fingerprint      = 3f2a17c9b4e05d81',
    details[1],
  ].join('\n');
  const withRefusal = (o: Observations, refusals: Observations['refusals'], attempts = o.attempts): Observations => ({
    ...o,
    attempts,
    refusals,
    expectedRefusals: [{ partition: 1, messagePrefix: prefix, details, from: 100, until: 200 }],
  });

  it('passes the exact refusal and flags a missing one, a wrong text and an insert during the refusal', () => {
    const o = cleanObservations(4);
    expect(checkScenario(withRefusal(o, [{ partition: 1, message, at: 150 }]), coverage, evidence).verdict).toBe(
      'pass',
    );
    const categories = (x: Observations) =>
      checkScenario(x, coverage, evidence).results.flatMap((r) => r.anomalies.map((a) => a.category));
    expect(categories(withRefusal(o, []))).toContain('refusal-missing');
    expect(
      categories(withRefusal(o, [{ partition: 1, message: message.replace('1-0-9', '1-0-8'), at: 150 }])),
    ).toContain('refusal-text');
    const sneaky = [...o.attempts, { ...o.attempts[0]!, partition: 1, startedAt: 160, queryId: 'sneaky' }];
    expect(categories(withRefusal(o, [{ partition: 1, message, at: 150 }], sneaky))).toContain(
      'inserted-while-refusing',
    );
    expect(categories({ ...o, refusals: [{ partition: 2, message, at: 5 }] })).toContain('refusal-unexpected');
  });
});

describe('outcome checker', () => {
  it('flags an INSERT the sink took as ok that its replica logged as failed (ClickHouse #65117)', () => {
    const o = cleanObservations(4);
    const [first] = o.attempts;
    const failed = { ...o, serverFinished: new Map([[first?.queryId ?? '', false]]) };
    const check = checkScenario(failed, coverage, evidence);
    expect(check.verdict).toBe('violation');
    expect(check.results.find((r) => r.checker === 'outcome')?.anomalies).toEqual([
      { category: 'ok-but-failed-on-server', count: 1, examples: [`${first?.queryId} (partition 0, batch 1)`] },
    ]);
    // An INSERT the server never logged (its replica restarted) proves nothing either way.
    expect(checkScenario({ ...o, serverFinished: new Map() }, coverage, evidence).verdict).toBe('pass');
  });
});

describe('sink contract checker', () => {
  it('flags valid dynamic parameters a running sink threw on', () => {
    const o = cleanObservations(4);
    const refused = { ...o, reconfigureFailures: [{ partition: 0, message: 'session busy' }] };
    const check = checkScenario(refused, coverage, evidence);
    expect(check.verdict).toBe('violation');
    expect(check.results.find((r) => r.checker === 'sink-contract')?.anomalies).toEqual([
      { category: 'reconfigure-refused', count: 1, examples: ['partition 0: session busy'] },
    ]);
    expect(checkScenario(o, coverage, evidence).results.find((r) => r.checker === 'sink-contract')?.verdict).toBe(
      'pass',
    );
  });

  it('flags an epoch an exactly-once class failed to cut, and leaves at-least-once failed writes to the other checkers', () => {
    const failed = [{ partition: 1, message: 'cut failed' }];
    const categories = (o: Observations) =>
      checkScenario(o, coverage, evidence).results.find((r) => r.checker === 'sink-contract')?.anomalies ?? [];
    expect(categories({ ...cleanObservations(4), epochFailures: failed })).toEqual([
      { category: 'epoch-refused', count: 1, examples: ['partition 1: cut failed'] },
    ]);
    expect(categories({ ...cleanObservations(4, 'at-least-once'), epochFailures: failed })).toEqual([]);
  });

  it('flags at-most-once messages dropped from output_messages before any INSERT carried them', () => {
    const o = { ...cleanObservations(4, 'at-most-once'), pendingDropped: ['1-0-2', '1-0-3'] };
    const check = checkScenario(o, coverage, evidence);
    expect(check.verdict).toBe('violation');
    expect(check.results.find((r) => r.checker === 'sink-contract')?.anomalies).toEqual([
      { category: 'pending-dropped', count: 2, examples: ['1-0-2', '1-0-3'] },
    ]);
  });

  it('holds a class to the warning its table makes it owe, and to no warning the table forbids', () => {
    const contract = (judgedWarning: Observations['judgedWarning']) =>
      checkScenario({ ...cleanObservations(4, 'at-least-once'), judgedWarning }, coverage, evidence).results.find(
        (r) => r.checker === 'sink-contract',
      )?.anomalies ?? [];
    expect(contract({ kind: 'no-block-dedup', expected: true, given: true })).toEqual([]);
    expect(contract({ kind: 'no-block-dedup', expected: false, given: false })).toEqual([]);
    expect(contract(undefined)).toEqual([]);
    expect(contract({ kind: 'no-block-dedup', expected: true, given: false })).toEqual([
      { category: 'warning-missing', count: 1, examples: ['no-block-dedup'] },
    ]);
    expect(contract({ kind: 'dedup-window-short', expected: false, given: true })).toEqual([
      { category: 'warning-unfounded', count: 1, examples: ['dedup-window-short'] },
    ]);
  });
});

describe('liveness checker', () => {
  const bound = { ms: 22_150, writeTimeoutMs: 6000, retryBackoffMs: 150, slackMs: 10_000 };
  const recovery = (outcome: 'drained' | 'stalled', endedAt: number) => ({
    trigger: 'episode' as const,
    window: 2,
    healedAt: 1000,
    healthyAt: 1500,
    bound,
    outcome,
    endedAt,
    ...(outcome === 'drained' ? { drainedMs: endedAt - 1000 } : {}),
  });
  const liveness = (o: Observations) =>
    checkScenario(o, coverage, evidence).results.find((r) => r.checker === 'liveness');

  it('passes a sink that drained within its bound after every heal, and flags one that stalled past it', () => {
    const drained = liveness({ ...cleanObservations(4), recoveries: [recovery('drained', 3000)] });
    expect(drained?.verdict).toBe('pass');
    expect(drained?.notes).toEqual([
      'fault window 2: healthy after 0.5 s, no INSERT pending, drained 2.0 s after the heal (bound 22.1 s = 2 × write_timeout 6000 ms + retry_backoff 150 ms + slack 10000 ms)',
    ]);
    const stalled = checkScenario(
      { ...cleanObservations(4), recoveries: [recovery('drained', 3000), recovery('stalled', 23_650)] },
      coverage,
      evidence,
    );
    expect(stalled.verdict).toBe('violation');
    expect(stalled.results.find((r) => r.checker === 'liveness')?.anomalies).toEqual([
      {
        category: 'stalled',
        count: 1,
        examples: [
          'fault window 2: no progress for 22.1 s, not drained 22.1 s after the cluster was healthy (healthy after 0.5 s; no INSERT pending; bound 22.1 s = 2 × write_timeout 6000 ms + retry_backoff 150 ms + slack 10000 ms)',
        ],
      },
    ]);
  });

  it('says where the schedule ended when a stall cut it short', () => {
    const cut = liveness({
      ...cleanObservations(4),
      recoveries: [recovery('stalled', 23_650)],
      scheduleCut: { ran: 2, steps: 5 },
    });
    expect(cut?.notes?.at(-1)).toBe(
      'the schedule ended after step 2 of 5: the sink stalled there, and the steps after it were not run',
    );
    expect(liveness({ ...cleanObservations(4), recoveries: [recovery('stalled', 23_650)] })?.notes).toHaveLength(1);
  });
});
