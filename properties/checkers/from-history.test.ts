import { describe, expect, it } from 'vitest';
import type { FlowEvent, Stamped } from '../../harness/flow/history/index.ts';
import { factsFromHistory, GIVE_UP_TEXT, giveUpsFromHistory } from './from-history.ts';

let seq = 0;
const stamp = (at: number, event: FlowEvent): Stamped =>
  ({ ...event, at, writer: 'w1', pid: 1, seq: ++seq }) as Stamped;
const key = { sink: 'events', partition: 0, batch: 1, queryId: 'q1', attempt: 1 };

describe('factsFromHistory — at-most-once queue drops', () => {
  it('counts the dropped acks of every epoch', () => {
    const acks = (epoch: number, list: Array<'queued' | 'dropped'>) =>
      stamp(300 + epoch, {
        type: 'acks',
        sink: 'events',
        partition: 0,
        epoch,
        acks: list.map((ack, i) => ({ id: `1-0-${epoch * 10 + i}`, ack })),
      });
    expect(
      factsFromHistory([acks(1, ['queued', 'dropped', 'dropped']), acks(2, ['dropped', 'queued'])], 'at-most-once', 1)
        .queueDrops,
    ).toBe(3);
  });
});

describe('factsFromHistory — reconfigurations in flight', () => {
  const insert = [
    stamp(100, { type: 'insert-invoke', ...key, shard: null, endpoint: 'h:1', messageIds: ['1-0-0'] }),
    stamp(200, { type: 'insert-complete', ...key, outcome: 'ok', startedAt: 100, endedAt: 200 }),
  ];
  const reconfigured = (startedAt: number) =>
    stamp(startedAt + 5, {
      type: 'reconfigured',
      startedAt,
      sink: 'events',
      partitions: [0],
      dynamic: { write_timeout: 4000 },
    });

  it('counts a change that began while an INSERT was between its start and its end', () => {
    expect(factsFromHistory([...insert, reconfigured(150)], 'exactly-once', 1).reconfiguredInFlight).toBe(1);
  });

  it('does not count changes before or after every INSERT', () => {
    expect(
      factsFromHistory([reconfigured(50), ...insert, reconfigured(250)], 'exactly-once', 1).reconfiguredInFlight,
    ).toBe(0);
  });

  it('counts a change during an attempt its worker never completed', () => {
    const cut = insert.slice(0, 1);
    expect(factsFromHistory([...cut, reconfigured(150)], 'exactly-once', 1).reconfiguredInFlight).toBe(1);
  });
});

describe('factsFromHistory — two faults in force on one INSERT', () => {
  const insert = [
    stamp(100, { type: 'insert-invoke', ...key, shard: null, endpoint: 'h:1', messageIds: ['1-0-0'] }),
    stamp(200, { type: 'insert-complete', ...key, outcome: 'unknown', startedAt: 110, endedAt: 200 }),
  ];
  const window = (id: number, from: number, healAt?: number): Stamped[] => [
    stamp(from, {
      type: 'fault-start',
      window: id,
      fault: 'latency',
      description: `latency(${id})`,
      targets: ['x'],
      effect: 'slow',
    }),
    ...(healAt === undefined
      ? []
      : [stamp(healAt + 5, { type: 'fault-end', window: id, fault: 'latency', healStartedAt: healAt })]),
  ];
  const overlapping = (...windows: Stamped[][]) =>
    factsFromHistory([...windows.flat(), ...insert], 'exactly-once', 1).overlappingFaults;

  it('counts an attempt whose request began inside two windows at once, one never healed included', () => {
    expect(overlapping(window(1, 100, 205), window(2, 105, 300))).toBe(1);
    expect(overlapping(window(1, 100, 205), window(2, 105))).toBe(1);
  });

  it('does not count one window, nor two that follow each other, nor one healed before the request began', () => {
    expect(overlapping(window(1, 100, 205))).toBe(0);
    expect(overlapping(window(1, 20, 40), window(2, 105, 300))).toBe(0);
    expect(overlapping(window(1, 100, 110), window(2, 105, 300))).toBe(0);
    expect(overlapping(window(1, 100, 205), window(2, 150, 300))).toBe(0);
  });
});

describe('giveUpsFromHistory — the retry on the instance that gave up', () => {
  const giveUpAt = (at: number) =>
    stamp(at, {
      type: 'delivery-failed',
      sink: 'events',
      partition: 0,
      batch: 1,
      token: '1-0-0',
      error: { message: GIVE_UP_TEXT, code: 'SINK_INSERT_GAVE_UP' },
    });
  const retried = (at: number) =>
    stamp(at, {
      type: 'write-after-give-up',
      sink: 'events',
      partition: 0,
      batch: 1,
      refused: true,
      error: { message: 'This ClickHouse sink instance gave up an insert', code: 'SINK_POISONED' },
    });
  const invoke = (at: number, queryId: string) =>
    stamp(at, { type: 'insert-invoke', ...key, queryId, shard: null, endpoint: 'h:1', messageIds: ['1-0-0'] });
  const writes = (events: Stamped[]) =>
    giveUpsFromHistory(events, factsFromHistory(events, 'exactly-once', 1).attempts, 1, () => ({
      fewest: 10,
      most: 10,
    })).writesAfterGiveUp;

  it('is refused only when no INSERT went out before the refusal, whatever code the instance answered', () => {
    expect(writes([invoke(100, 'q1'), giveUpAt(200), retried(300)])).toEqual([
      { partition: 0, batch: 1, refused: true, error: 'This ClickHouse sink instance gave up an insert' },
    ]);
    expect(writes([invoke(100, 'q1'), giveUpAt(200), invoke(250, 'q2'), retried(300)])).toEqual([
      {
        partition: 0,
        batch: 1,
        refused: false,
        error: 'the INSERT q2 went out first (then: This ClickHouse sink instance gave up an insert)',
      },
    ]);
  });
});
