import { describe, expect, it } from 'vitest';
import type {
  FaultEffect,
  FaultStartEvent,
  FaultType,
  FlowEvent,
  LinkCounters,
  Stamped,
} from '../../harness/flow/history/index.ts';
import { faultEvidence, type ServerView } from './fault-evidence.ts';
import type { AttemptRecord } from './observations.ts';

let seq = 0;
const stamped = (at: number, event: FlowEvent): Stamped =>
  ({ ...event, at, writer: 'nemesis', pid: 1, seq: seq++ }) as Stamped;

const attempt = (queryId: string, over: Partial<AttemptRecord> = {}): AttemptRecord => ({
  writer: 'w1',
  partition: 0,
  batch: 1,
  shard: null,
  endpoint: 'a:1',
  queryId,
  messageIds: ['m'],
  outcome: 'unknown',
  sent: true,
  sentBytes: 1000,
  invokedAt: 100,
  startedAt: 110,
  endedAt: 130,
  ...over,
});

/** The aimed link carried `carried` bytes while the fault was in force (before: 5000). */
const carrying = (carried: number) => ({
  before: { received: { x: 5000 } } as LinkCounters,
  after: { received: { x: 5000 + carried } } as LinkCounters,
});
const CARRIED = carrying(1000);

const aimed = (
  window: number,
  fault: FaultType,
  effect: FaultEffect,
  queryId: string,
  over: Partial<FaultStartEvent> & { at?: number } = {},
) =>
  stamped(over.at ?? 105, {
    type: 'fault-start',
    window,
    fault,
    description: `${fault}(x)`,
    targets: ['x'],
    effect,
    aimedAt: { gate: window, queryId, attempt: 1, endpoint: 'a:1' },
    links: CARRIED.before,
    ...over,
  } as FaultStartEvent);
const healed = (window: number, fault: FaultType, at: number, verified?: boolean, links = CARRIED.after) =>
  stamped(at, {
    type: 'fault-end',
    window,
    fault,
    healStartedAt: at - 5,
    ...(verified === undefined ? {} : { verified }),
    links,
  });

/** The one client proxy of these histories, `x`, in front of the endpoint every attempt dials. */
const noServer: ServerView = {
  exceptionCodes: new Map(),
  unknown: { landed: [], absent: [], unresolved: [] },
  clientLinks: new Map([['x', 'a:1']]),
};
const evidence = (events: Stamped[], attempts: AttemptRecord[], server = noServer) =>
  faultEvidence(events, attempts, server);

describe('faultEvidence', () => {
  it('counts a cut toxic when the aimed INSERT ended unknown and resolved as the plan expected', () => {
    // One episode after another, 100 ms apart, each aimed at its own INSERT.
    const episode = (window: number, fault: FaultType, queryId: string, expects: 'landed' | 'absent') => [
      aimed(window, fault, 'error', queryId, { expects, at: 5 + 100 * window }),
      healed(window, fault, 40 + 100 * window),
    ];
    const events = [
      ...episode(1, 'reset_peer', 'q1', 'landed'),
      ...episode(2, 'limit_data', 'q2', 'landed'),
      ...episode(3, 'timeout', 'q3', 'absent'),
      ...episode(4, 'timeout', 'q4', 'absent'),
    ];
    const at = (i: number) => ({ invokedAt: 100 * i, startedAt: 10 + 100 * i, endedAt: 30 + 100 * i });
    const [q1, q2, q3, q4] = [
      attempt('q1', at(1)),
      attempt('q2', { outcome: 'ok', ...at(2) }),
      attempt('q3', at(3)),
      attempt('q4', at(4)),
    ];
    const result = evidence(events, [q1, q2, q3, q4], {
      ...noServer,
      unknown: { landed: [q1, q4], absent: [q3], unresolved: [] },
    });
    expect(result.fired).toEqual(
      new Map([
        ['reset_peer', 1],
        ['timeout', 1],
      ]),
    );
    expect(result.missed.map((miss) => miss.reason)).toEqual([
      'limit_data(x): the aimed INSERT q2 still succeeded',
      "timeout(x): the aimed INSERT q4's unknown outcome resolved landed, the plan expected absent",
    ]);
    // The attempts a fault was proven on, by query id: what `retryMetFault` pairs up.
    expect([...result.metAttempts]).toEqual(['q1', 'q3']);
  });

  it('counts a server-error fault only on its own ClickHouse code, answered to the INSERT and in its query_log', () => {
    const events = [
      aimed(1, 'too_many_parts', 'error', 'q1', { serverCode: '252' }),
      healed(1, 'too_many_parts', 140),
      aimed(2, 'too_many_parts', 'error', 'q2', { serverCode: '252' }),
      healed(2, 'too_many_parts', 140),
      aimed(3, 'table_detached', 'error', 'q3', { serverCode: '60' }),
      healed(3, 'table_detached', 140),
    ];
    const attempts = [
      attempt('q1', { outcome: 'failed', errorCode: '252' }),
      attempt('q2', { outcome: 'unknown', errorCode: 'ECONNRESET' }),
      attempt('q3', { outcome: 'failed', errorCode: '60' }),
    ];
    const result = evidence(events, attempts, { ...noServer, exceptionCodes: new Map([['q1', 252]]) });
    expect(result.fired).toEqual(new Map([['too_many_parts', 1]]));
    expect(result.missed.map((miss) => miss.reason)).toEqual([
      "too_many_parts(x): the aimed INSERT q2 ended unknown with ECONNRESET, not with the plan's ClickHouse code 252",
      'table_detached(x): query_log shows no entry for the aimed INSERT q3, not 60',
    ]);
  });

  it('counts a server-window fault only when the aimed INSERT itself was seen in every window it names, in order', () => {
    const windows = ['part-written', 'commit-unconfirmed'] as const;
    const start = (window: number, queryId: string) =>
      aimed(window, 'server_window', 'error', queryId, {
        serverCode: '319',
        proofs: ['server-code', 'window-hit'],
        windows,
      });
    const end = (window: number, hits: { window: (typeof windows)[number]; queryIds: string[] }[], missed?: string) =>
      stamped(140, {
        type: 'fault-end',
        window,
        fault: 'server_window',
        windowHit: {
          replica: 's1r1',
          hits: hits.map((hit) => ({ ...hit, at: 120 })),
          ...(missed === undefined ? {} : { missed }),
        },
      });
    const both = (queryIds: string[]) => windows.map((window) => ({ window, queryIds }));
    const events = [
      start(1, 'q1'),
      end(1, both(['q0', 'q1'])),
      start(2, 'q2'),
      end(2, both(['q0'])),
      start(3, 'q3'),
      end(3, [{ window: 'part-written', queryIds: ['q3'] }], 'the engine lacks the failpoint x'),
      start(4, 'q4'),
      end(4, [...both(['q4'])].reverse()),
    ];
    const attempts = ['q1', 'q2', 'q3', 'q4'].map((id) => attempt(id, { outcome: 'unknown', errorCode: '319' }));
    const exceptionCodes = new Map(['q1', 'q2', 'q3', 'q4'].map((id) => [id, 319]));
    const result = evidence(events, attempts, { ...noServer, exceptionCodes });
    expect(result.fired).toEqual(new Map([['server_window', 1]]));
    expect(result.missed.map((miss) => miss.reason)).toEqual([
      'server_window(x): the window part-written was reached on s1r1 by q0, not by the aimed INSERT q2',
      'server_window(x): the window commit-unconfirmed was not reached on s1r1: the engine lacks the failpoint x',
      'server_window(x): the window part-written was not reached on s1r1',
    ]);
  });

  it('counts the link down only when the INSERT failed at the link, not on the server', () => {
    const down = (errorCode: string) =>
      evidence(
        [aimed(1, 'proxy_down', 'error', 'q1'), healed(1, 'proxy_down', 140)],
        [attempt('q1', { outcome: 'failed', errorCode })],
      ).fired.get('proxy_down');
    expect(down('ECONNREFUSED')).toBe(1);
    expect(down('252')).toBeUndefined();
  });

  it('counts bandwidth only when the INSERT took at least its bytes over the rate, long enough to tell', () => {
    const bandwidth = (rate: number, sentBytes: number, took: number) =>
      evidence(
        [
          aimed(1, 'bandwidth', 'traffic', 'q1', { toxic: { stream: 'upstream', attributes: { rate } } }),
          healed(1, 'bandwidth', 5_000, undefined, carrying(sentBytes).after),
        ],
        [attempt('q1', { outcome: 'ok', sentBytes, startedAt: 110, endedAt: 110 + took })],
      );
    expect(bandwidth(2, 1000, 520).fired.get('bandwidth')).toBe(1);
    expect(bandwidth(2, 1000, 30).missed.map((miss) => miss.reason)).toEqual([
      'bandwidth(x): the aimed INSERT took 30 ms, less than the 500 ms its 1000 B need through it, and no timeout of the sink ended it',
    ]);
    expect(bandwidth(200, 1000, 30).missed.map((miss) => miss.reason)).toEqual([
      "bandwidth(x): the aimed INSERT's 1000 B need only 5 ms through it, no longer than an unfaulted INSERT may take: no evidence it acted",
    ]);
  });

  it('counts bandwidth when the sink timed the INSERT out before its bytes could pass the throttle, and only then', () => {
    const cutShort = (over: Partial<AttemptRecord>) =>
      evidence(
        [
          aimed(1, 'bandwidth', 'traffic', 'q1', { toxic: { stream: 'upstream', attributes: { rate: 3 } } }),
          healed(1, 'bandwidth', 5_000, undefined, carrying(13_029).after),
        ],
        [attempt('q1', { outcome: 'unknown', sentBytes: 13_029, startedAt: 110, endedAt: 3_119, ...over })],
      );
    expect(cutShort({ timedOut: true }).fired.get('bandwidth')).toBe(1);
    expect(cutShort({ timedOut: false }).missed.map((miss) => miss.reason)).toEqual([
      'bandwidth(x): the aimed INSERT took 3009 ms, less than the 4343 ms its 13029 B need through it, and no timeout of the sink ended it',
    ]);
    expect(cutShort({ timedOut: true, endedAt: 150 }).missed).toHaveLength(1);
  });

  it('counts slicer only when the INSERT took at least its slices times the delay', () => {
    const slicer = (took: number) =>
      evidence(
        [
          aimed(1, 'slicer', 'traffic', 'q1', {
            toxic: { stream: 'upstream', attributes: { average_size: 8, size_variation: 4, delay: 3000 } },
          }),
          healed(1, 'slicer', 5_000),
        ],
        [attempt('q1', { outcome: 'ok', sentBytes: 1000, startedAt: 110, endedAt: 110 + took })],
      ).fired.get('slicer');
    // 1000 B in slices of at most 12 B: 84 slices, 83 delays of 3 ms.
    expect(slicer(250)).toBe(1);
    expect(slicer(240)).toBeUndefined();
  });

  it('counts a toxic only when its own proxy carried the aimed INSERT, by the proxy’s counters', () => {
    const latency = (end: LinkCounters, start: LinkCounters = CARRIED.before) =>
      evidence(
        [
          aimed(1, 'latency', 'slow', 'q1', { slowerThanMs: 200, links: start }),
          healed(1, 'latency', 400, undefined, end),
        ],
        [attempt('q1', { outcome: 'ok', startedAt: 110, endedAt: 330 })],
      );
    expect(latency(CARRIED.after).fired.get('latency')).toBe(1);
    expect(latency(carrying(999).after).missed.map((miss) => miss.reason)).toEqual([
      'latency(x): x received 999 B while it was in force, less than the 1000 B the aimed INSERT q1 sent: it did not carry that INSERT',
    ]);
    expect(latency({ received: {} }).missed.map((miss) => miss.reason)).toEqual([
      'latency(x): the fault proxy reported no byte counter for x (a Toxiproxy without -proxy-metrics?)',
    ]);
    const unavailable = { received: {}, unavailable: 'GET http://t/metrics answered 404' };
    expect(latency(unavailable, unavailable).missed.map((miss) => miss.reason)).toEqual([
      "latency(x): its proxies' byte counters could not be read: GET http://t/metrics answered 404",
    ]);
  });

  it('does not let other traffic on the faulted link stand in for an INSERT that went another way', () => {
    const events = [
      aimed(1, 'latency', 'slow', 'q1', { slowerThanMs: 200 }),
      healed(1, 'latency', 400, undefined, carrying(1500).after),
    ];
    const slow = { outcome: 'ok', startedAt: 110, endedAt: 330 } as const;
    // Two INSERTs of 1000 B each through x while the fault was in force, and x counted 1500 B.
    const alongside = attempt('q2', { outcome: 'ok', startedAt: 150, endedAt: 200 });
    expect(evidence(events, [attempt('q1', slow), alongside]).missed.map((miss) => miss.reason)).toEqual([
      'latency(x): x received 1500 B while it was in force, less than the 2000 B the aimed INSERT q1 and 1 other INSERT(s) through it sent: it did not carry that INSERT',
    ]);
    // The aimed INSERT says it went to an endpoint the faulted proxy is not in front of.
    expect(evidence(events, [attempt('q1', { ...slow, endpoint: 'b:1' })]).missed.map((miss) => miss.reason)).toEqual([
      'latency(x): the aimed INSERT q1 went to b:1, which is not behind x',
    ]);
  });

  it("counts a Keeper-link latency only when the aimed INSERT's own Keeper wait reached it, not by its duration", () => {
    const events = [
      aimed(1, 'latency', 'slow', 'q1', { slowerThanMs: 250, targets: ['k'], proofs: ['keeper-wait'] }),
      healed(1, 'latency', 400),
    ];
    // Slow enough end to end either way: only what the server recorded for q1 tells them apart.
    const slow = [attempt('q1', { outcome: 'ok', startedAt: 110, endedAt: 390 })];
    const waited = (ms: number | undefined): ServerView => ({
      ...noServer,
      keeperWaits: new Map(ms === undefined ? [] : [['q1', ms]]),
    });
    expect(evidence(events, slow, waited(262.5)).fired.get('latency')).toBe(1);
    expect(evidence(events, slow, waited(3.2)).missed.map((miss) => miss.reason)).toEqual([
      'latency(x): the aimed INSERT q1 waited 3 ms on Keeper, less than the 250 ms the latency adds',
    ]);
    expect(evidence(events, slow, waited(undefined)).missed.map((miss) => miss.reason)).toEqual([
      'latency(x): zookeeper_log records no Keeper wait for the aimed INSERT q1',
    ]);
  });

  it("where the proxy counts a connection only once it ends, takes the server's log of the aimed INSERT's Keeper requests through the faulted link as its traffic, and no other link's", () => {
    // The real Toxiproxy: a Keeper session outlives the fault, so k's counter did not move.
    const still = { received: { k: 700 }, listens: { k: '127.0.0.1:26388' } } as LinkCounters;
    const events = [
      aimed(1, 'latency', 'slow', 'q1', {
        slowerThanMs: 250,
        targets: ['k'],
        proofs: ['links-active', 'keeper-wait'],
        links: still,
      }),
      healed(1, 'latency', 400, undefined, still),
    ];
    const slow = [attempt('q1', { outcome: 'ok', startedAt: 110, endedAt: 390 })];
    const through = (byLink: Record<string, number>): ServerView => ({
      ...noServer,
      keeperWaits: new Map([['q1', Math.max(...Object.values(byLink))]]),
      keeperLinkWaits: new Map([['q1', byLink]]),
    });
    expect(evidence(events, slow, through({ '127.0.0.1:26388': 262 })).fired.get('latency')).toBe(1);
    // Its slow answers came through another Keeper link (a partner's pause, say): k carried none of them.
    expect(evidence(events, slow, through({ '127.0.0.1:31679': 262 })).missed.map((miss) => miss.reason)).toEqual([
      'latency(x): k carried nothing while it was in force, by its counters and by zookeeper_log',
    ]);
    // Through k, but not slowed by it.
    expect(
      evidence(events, slow, through({ '127.0.0.1:26388': 4, '127.0.0.1:31679': 300 })).missed.map(
        (miss) => miss.reason,
      ),
    ).toEqual([
      'latency(x): the aimed INSERT q1 waited 4 ms on Keeper through k, less than the 250 ms the latency adds',
    ]);
    // A proxy listening on every address is matched by its port.
    const anywhere = { received: { k: 700 }, listens: { k: '[::]:26388' } } as LinkCounters;
    const wildcard = [
      aimed(1, 'latency', 'slow', 'q1', {
        slowerThanMs: 250,
        targets: ['k'],
        proofs: ['links-active', 'keeper-wait'],
        links: anywhere,
      }),
      healed(1, 'latency', 400, undefined, anywhere),
    ];
    expect(evidence(wildcard, slow, through({ '172.18.0.5:26388': 262 })).fired.get('latency')).toBe(1);
  });

  it('reads what a fault must show from the proofs its fault-start records, before its fault type', () => {
    // A latency on a Keeper link (`k`, in front of no client endpoint): the history says which proofs apply.
    const keeperLatency = (links: { before: LinkCounters; after: LinkCounters }, proofs?: FaultStartEvent['proofs']) =>
      evidence(
        [
          aimed(1, 'latency', 'slow', 'q1', {
            slowerThanMs: 200,
            targets: ['k'],
            links: links.before,
            ...(proofs === undefined ? {} : { proofs }),
          }),
          healed(1, 'latency', 400, undefined, links.after),
        ],
        [attempt('q1', { outcome: 'ok', startedAt: 110, endedAt: 330 })],
      );
    const onK = (carried: number) => ({
      before: { received: { k: 700 } } as LinkCounters,
      after: { received: { k: 700 + carried } } as LinkCounters,
    });
    expect(keeperLatency(onK(90), ['links-active']).fired.get('latency')).toBe(1);
    expect(keeperLatency(onK(0), ['links-active']).missed.map((miss) => miss.reason)).toEqual([
      'latency(x): k carried nothing while it was in force',
    ]);
    // Recorded before proofs were: a latency is judged as on the aimed INSERT's client link, which k is not.
    expect(keeperLatency(onK(90)).missed.map((miss) => miss.reason)).toEqual([
      'latency(x): the aimed INSERT q1 went to a:1, which is not behind k',
    ]);
    // A recorded process proof is required whatever the type.
    const seen = (verified: boolean) =>
      evidence(
        [
          aimed(1, 'keeper_link_cut', 'blocked', 'q1', { proofs: ['process-seen'] }),
          healed(1, 'keeper_link_cut', 400, verified),
        ],
        [attempt('q1', { outcome: 'failed', endedAt: 300 })],
      );
    expect(seen(true).fired.get('keeper_link_cut')).toBe(1);
    expect(seen(false).missed.map((miss) => miss.reason)).toEqual([
      'keeper_link_cut(x): the process was never seen stopped',
    ]);
  });

  it('judges slowness on the aimed INSERT itself', () => {
    const events = [aimed(1, 'latency', 'slow', 'q1', { slowerThanMs: 200 }), healed(1, 'latency', 400)];
    expect(
      evidence(events, [attempt('q1', { outcome: 'ok', startedAt: 110, endedAt: 330 })]).fired.get('latency'),
    ).toBe(1);
    expect(
      evidence(events, [attempt('q1', { outcome: 'ok', startedAt: 110, endedAt: 150 })]).fired.get('latency'),
    ).toBeUndefined();
  });

  it('a stalling fault (a Keeper leader gone) fires on a slow INSERT or a failed one, once seen stopped', () => {
    const leader = (outcome: AttemptRecord['outcome'], endedAt: number, verified = true) =>
      evidence(
        [aimed(1, 'keeper_kill', 'stalled', 'q1', { slowerThanMs: 500 }), healed(1, 'keeper_kill', 5_000, verified)],
        [attempt('q1', { outcome, startedAt: 110, endedAt })],
      ).fired.get('keeper_kill');
    expect(leader('ok', 700)).toBe(1);
    expect(leader('unknown', 300)).toBe(1);
    expect(leader('ok', 300)).toBeUndefined();
    expect(leader('ok', 1_500, false)).toBeUndefined();
  });

  it('a process fault needs the process seen stopped and the INSERT blocked until the heal', () => {
    const kill = (verified: boolean, endedAt: number, outcome: AttemptRecord['outcome']) =>
      evidence(
        [aimed(1, 'replica_pause', 'blocked', 'q1'), healed(1, 'replica_pause', 1_000, verified)],
        [attempt('q1', { outcome, endedAt })],
      ).fired.get('replica_pause');
    expect(kill(true, 1_200, 'ok')).toBe(1);
    // Ended between the process continuing and the heal being written down: still blocked.
    expect(kill(true, 997, 'ok')).toBe(1);
    expect(kill(true, 300, 'failed')).toBe(1);
    expect(kill(true, 300, 'ok')).toBeUndefined();
    expect(kill(false, 1_200, 'ok')).toBeUndefined();
  });

  it('a quorum fault fires only when its INSERT’s unknown outcome resolved as the plan expected', () => {
    const quorum = (over: Partial<AttemptRecord>, landed: boolean) =>
      evidence(
        [aimed(1, 'replica_pause', 'blocked', 'q1', { expects: 'landed' }), healed(1, 'replica_pause', 1_000, true)],
        [attempt('q1', over)],
        { ...noServer, unknown: { landed: landed ? [attempt('q1', over)] : [], absent: [], unresolved: [] } },
      ).missed.map((miss) => miss.reason);
    // UNKNOWN_STATUS_OF_INSERT: the part committed, the quorum was not met.
    expect(quorum({ outcome: 'unknown', errorCode: '319', endedAt: 300 }, true)).toEqual([]);
    // A refusal for another reason is not the quorum cut the plan was built to cause.
    expect(quorum({ outcome: 'failed', errorCode: '252', endedAt: 300 }, false)).toEqual([
      'replica_pause(x): the aimed INSERT q1 ended failed, not unknown',
    ]);
  });

  it('a fault healed right after its INSERT started proves nothing by the INSERT ending later', () => {
    const events = [aimed(1, 'keeper_link_cut', 'blocked', 'q1'), healed(1, 'keeper_link_cut', 125)];
    expect(evidence(events, [attempt('q1', { outcome: 'ok', startedAt: 110, endedAt: 300 })]).missed).toEqual([
      {
        fault: 'keeper_link_cut',
        reason: 'keeper_link_cut(x): healed 10 ms after the aimed INSERT started, too soon to show it was blocked',
      },
    ]);
  });

  it('a witnessed fault fires only when the nemesis saw its effect', () => {
    expect(
      evidence([aimed(1, 'interserver_cut', 'witness', 'q1'), healed(1, 'interserver_cut', 500, true)], []).fired.get(
        'interserver_cut',
      ),
    ).toBe(1);
    expect(
      evidence([aimed(1, 'interserver_cut', 'witness', 'q1'), healed(1, 'interserver_cut', 500, false)], []).missed,
    ).toEqual([{ fault: 'interserver_cut', reason: 'interserver_cut(x): the cluster never showed its effect' }]);
  });

  it('a fault never healed, one whose INSERT is missing, and one that never met an INSERT all fire nothing', () => {
    const events = [
      aimed(1, 'reset_peer', 'error', 'q1'),
      aimed(2, 'timeout', 'error', 'gone'),
      healed(2, 'timeout', 150),
      stamped(200, {
        type: 'fault-missed',
        fault: 'latency',
        description: 'latency(x)',
        reason: 'armed on the next INSERT: no INSERT started within 30 s',
      }),
    ];
    const result = evidence(events, [attempt('q1')]);
    expect(result.fired.size).toBe(0);
    expect(result.missed.map((miss) => miss.reason)).toEqual([
      'reset_peer(x): never healed (the run ended inside it)',
      'timeout(x): the INSERT it was aimed at is not in the history',
      'latency(x): armed on the next INSERT: no INSERT started within 30 s',
    ]);
  });
});

describe('faultEvidence of two faults in force on one INSERT at once', () => {
  /** A request cut (window 1) and a server error on every replica (window 2), both aimed at q1. */
  const pair = (serverHealAt = 900) => [
    aimed(1, 'timeout', 'error', 'q1', { expects: 'absent', overlaps: 2 }),
    aimed(2, 'too_many_parts', 'error', 'q1', { serverCode: '252', overlaps: 1 }),
    healed(1, 'timeout', 140),
    healed(2, 'too_many_parts', serverHealAt),
  ];
  const cutThenRefused = [
    attempt('q1', { outcome: 'unknown', errorCode: 'ECONNRESET' }),
    attempt('q2', { outcome: 'failed', errorCode: '252', invokedAt: 300, startedAt: 310, endedAt: 330 }),
  ];
  const server: ServerView = {
    ...noServer,
    exceptionCodes: new Map([['q2', 252]]),
    unknown: { landed: [], absent: [cutThenRefused[0] as AttemptRecord], unresolved: [] },
  };

  it('counts each on its own evidence: the cut on the aimed attempt, the server error on the retry that met it', () => {
    const result = evidence(pair(), cutThenRefused, server);
    expect(result.missed).toEqual([]);
    expect(result.fired).toEqual(
      new Map([
        ['timeout', 1],
        ['too_many_parts', 1],
      ]),
    );
  });

  it('does not take a later attempt as evidence once the fault was healed, nor one the server did not log', () => {
    const healedBefore = evidence(pair(300), cutThenRefused, server);
    expect(healedBefore.fired.get('too_many_parts')).toBeUndefined();
    expect(healedBefore.missed.map((miss) => miss.reason)).toEqual([
      "too_many_parts(x): the aimed INSERT q1 ended unknown with ECONNRESET, not with the plan's ClickHouse code 252, nor did any of the 0 later attempt(s) while it was in force show it",
    ]);
    const unlogged = evidence(pair(), cutThenRefused, { ...server, exceptionCodes: new Map() });
    expect(unlogged.fired.get('too_many_parts')).toBeUndefined();
    expect(unlogged.fired.get('timeout')).toBe(1);
  });

  it('counts neither when what one rests on could have come from the other', () => {
    const blocked = evidence(
      [
        aimed(1, 'replica_kill', 'blocked', 'q1', { overlaps: 2 }),
        aimed(2, 'keeper_pause', 'blocked', 'q1', { overlaps: 1 }),
        healed(1, 'replica_kill', 900, true),
        healed(2, 'keeper_pause', 900, true),
      ],
      [attempt('q1', { outcome: 'failed', errorCode: 'ECONNREFUSED' })],
    );
    expect(blocked.fired.size).toBe(0);
    expect(blocked.missed.map((miss) => miss.reason)).toEqual([
      "replica_kill(x): it rests on an INSERT that did not end ok and its partner keeper_pause(x) on an INSERT that did not end ok: either could have shown the other's",
      "keeper_pause(x): it rests on an INSERT that did not end ok and its partner replica_kill(x) on an INSERT that did not end ok: either could have shown the other's",
    ]);
    const twoCuts = evidence(
      [
        aimed(1, 'timeout', 'error', 'q1', { expects: 'absent', overlaps: 2 }),
        aimed(2, 'reset_peer', 'error', 'q1', { expects: 'absent', overlaps: 1 }),
        healed(1, 'timeout', 140),
        healed(2, 'reset_peer', 140),
      ],
      cutThenRefused,
      server,
    );
    expect(twoCuts.fired.size).toBe(0);
  });

  it("does not count a cut whose INSERT ended by the sink's own timeout, which a slow partner could cause", () => {
    const timedOut = [
      { ...(cutThenRefused[0] as AttemptRecord), errorCode: undefined },
      cutThenRefused[1] as AttemptRecord,
    ];
    const result = evidence(pair(), timedOut, {
      ...server,
      unknown: { ...server.unknown, absent: [timedOut[0] as AttemptRecord] },
    });
    expect(result.fired.get('timeout')).toBeUndefined();
    expect(result.fired.get('too_many_parts')).toBe(1);
  });

  it('counts nothing for a fault whose partner is not in the history', () => {
    const [cut, , cutHealed] = pair();
    const result = evidence([cut as Stamped, cutHealed as Stamped], cutThenRefused, server);
    expect(result.missed.map((miss) => miss.reason)).toEqual([
      'timeout(x): its partner, window 2, is not in the history',
    ]);
  });
});
