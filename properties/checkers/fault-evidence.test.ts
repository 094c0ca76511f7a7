import { describe, expect, it } from 'vitest';
import type { FaultType } from '../../harness/flow/history/fault-type.ts';
import type { FaultEffect, FlowEvent, Stamped } from '../../harness/flow/history/history-events.ts';
import { faultEvidence } from './fault-evidence.ts';
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
  invokedAt: 100,
  startedAt: 110,
  endedAt: 130,
  ...over,
});

const aimed = (
  window: number,
  fault: FaultType,
  effect: FaultEffect,
  queryId: string,
  at = 105,
  slowerThanMs?: number,
) =>
  stamped(at, {
    type: 'fault-start',
    window,
    fault,
    description: `${fault}(x)`,
    targets: ['x'],
    effect,
    ...(slowerThanMs === undefined ? {} : { slowerThanMs }),
    aimedAt: { gate: window, queryId, attempt: 1, endpoint: 'a:1' },
  });
const healed = (window: number, fault: FaultType, at: number, verified?: boolean) =>
  stamped(at, {
    type: 'fault-end',
    window,
    fault,
    healStartedAt: at - 5,
    ...(verified === undefined ? {} : { verified }),
  });

describe('faultEvidence', () => {
  it('counts an error fault when the INSERT it was aimed at did not end ok', () => {
    const events = [
      aimed(1, 'reset_peer', 'error', 'q1'),
      healed(1, 'reset_peer', 140),
      aimed(2, 'limit_data', 'error', 'q2'),
      healed(2, 'limit_data', 140),
    ];
    const result = faultEvidence(events, [attempt('q1'), attempt('q2', { outcome: 'ok' })]);
    expect(result.fired).toEqual(new Map([['reset_peer', 1]]));
    expect(result.missed).toEqual([
      { fault: 'limit_data', reason: 'limit_data(x): the aimed INSERT q2 still succeeded' },
    ]);
  });

  it('judges slowness on the aimed INSERT itself', () => {
    const events = [aimed(1, 'latency', 'slow', 'q1', 105, 200), healed(1, 'latency', 400)];
    expect(
      faultEvidence(events, [attempt('q1', { outcome: 'ok', startedAt: 110, endedAt: 330 })]).fired.get('latency'),
    ).toBe(1);
    expect(
      faultEvidence(events, [attempt('q1', { outcome: 'ok', startedAt: 110, endedAt: 150 })]).fired.get('latency'),
    ).toBeUndefined();
  });

  it('a stalling fault (a Keeper leader gone) fires on a slow INSERT or a failed one, once seen stopped', () => {
    const leader = (outcome: AttemptRecord['outcome'], endedAt: number, verified = true) =>
      faultEvidence(
        [aimed(1, 'keeper_kill', 'stalled', 'q1', 105, 500), healed(1, 'keeper_kill', 5_000, verified)],
        [attempt('q1', { outcome, startedAt: 110, endedAt })],
      ).fired.get('keeper_kill');
    expect(leader('ok', 700)).toBe(1);
    expect(leader('unknown', 300)).toBe(1);
    expect(leader('ok', 300)).toBeUndefined();
    expect(leader('ok', 1_500, false)).toBeUndefined();
  });

  it('a process fault needs the process seen stopped and the INSERT blocked until the heal', () => {
    const kill = (verified: boolean, endedAt: number, outcome: AttemptRecord['outcome']) =>
      faultEvidence(
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

  it('a fault healed right after its INSERT started proves nothing by the INSERT ending later', () => {
    const events = [aimed(1, 'keeper_link_cut', 'blocked', 'q1'), healed(1, 'keeper_link_cut', 125)];
    expect(faultEvidence(events, [attempt('q1', { outcome: 'ok', startedAt: 110, endedAt: 300 })]).missed).toEqual([
      {
        fault: 'keeper_link_cut',
        reason: 'keeper_link_cut(x): healed 10 ms after the aimed INSERT started, too soon to show it was blocked',
      },
    ]);
  });

  it('a witnessed fault fires only when the nemesis saw its effect', () => {
    expect(
      faultEvidence(
        [aimed(1, 'interserver_cut', 'witness', 'q1'), healed(1, 'interserver_cut', 500, true)],
        [],
      ).fired.get('interserver_cut'),
    ).toBe(1);
    expect(
      faultEvidence([aimed(1, 'interserver_cut', 'witness', 'q1'), healed(1, 'interserver_cut', 500, false)], [])
        .missed,
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
    const result = faultEvidence(events, [attempt('q1')]);
    expect(result.fired.size).toBe(0);
    expect(result.missed.map((miss) => miss.reason)).toEqual([
      'reset_peer(x): never healed (the run ended inside it)',
      'timeout(x): the INSERT it was aimed at is not in the history',
      'latency(x): armed on the next INSERT: no INSERT started within 30 s',
    ]);
  });
});
