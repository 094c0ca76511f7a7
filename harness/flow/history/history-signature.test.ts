import { describe, expect, it } from 'vitest';
import type { FlowEvent, Stamped } from './history-events.ts';
import { historySignature } from './history-signature.ts';

/** One execution of a small run: a batching sink, one epoch of two batches, a fault on the first batch's INSERT. */
interface Execution {
  readonly at: number;
  readonly pid: number;
  readonly queryId: (batch: number) => string;
  readonly port: number;
  /** Failed tries before the INSERT of batch 1 went through (a retry the cluster's timing decided). */
  readonly retries: number;
}

const FIRST: Execution = { at: 1_000, pid: 100, queryId: (batch) => `q${batch}-aaa`, port: 9000, retries: 0 };
const SECOND: Execution = { at: 7_777, pid: 4242, queryId: (batch) => `q${batch}-zzz`, port: 9123, retries: 2 };

type Event = FlowEvent;

function history(run: Execution, change: (events: Event[]) => Event[] = (events) => events): Stamped[] {
  const insert = (batch: number, attempt: number, outcome: 'ok' | 'failed'): Event[] => {
    const key = { sink: 'chaos_sink', partition: 0, batch, queryId: run.queryId(batch) + attempt, attempt };
    return [
      {
        type: 'insert-invoke',
        ...key,
        batchToken: `1-0-${batch}`,
        dedupToken: `1-0-${batch}`,
        shard: null,
        endpoint: `127.10.1.1:${run.port}`,
        messageIds: [`1-0-${batch}`],
      },
      { type: 'insert-sent', ...key, bytes: 700 + attempt },
      { type: 'insert-complete', ...key, outcome, startedAt: run.at, endedAt: run.at + 40 * attempt },
    ];
  };
  const tries = Array.from({ length: run.retries }, (_, i) => insert(1, i + 1, 'failed')).flat();
  const events: Event[] = [
    {
      type: 'epoch-commit',
      sink: 'chaos_sink',
      sinkClass: 'ClickHouseBatchingSink',
      partition: 0,
      epoch: 1,
      fromSeq: 0,
      toSeq: 2,
      messageIds: ['1-0-0', '1-0-1'],
      batches: [
        { number: 1, token: '1-0-0', messages: 1 },
        { number: 2, token: '1-0-1', messages: 1 },
      ],
    },
    {
      type: 'fault-start',
      window: 1,
      fault: 'timeout',
      description: 'timeout(s1r1_client, 102ms, upstream)',
      targets: ['s1r1_client'],
      effect: 'error',
      expects: 'absent',
      toxic: { stream: 'upstream', attributes: { timeout: 102 } },
      aimedAt: { gate: 1, queryId: run.queryId(1), attempt: 1, endpoint: `127.10.1.1:${run.port}` },
      links: { received: { s1r1_client: run.at * 3 } },
    },
    ...tries,
    ...insert(1, run.retries + 1, 'ok'),
    { type: 'fault-end', window: 1, fault: 'timeout', healStartedAt: run.at + 5 },
    { type: 'delivered', sink: 'chaos_sink', partition: 0, batch: 1, token: '1-0-0' },
    ...insert(2, 1, 'ok'),
    { type: 'delivered', sink: 'chaos_sink', partition: 0, batch: 2, token: '1-0-1' },
    {
      type: 'partition-refused',
      sink: 'chaos_sink',
      sinkClass: 'ClickHouseBatchingSink',
      partition: 1,
      code: 'TOPOLOGY_CHANGED',
      message: `the routing changed over a backlog: was 127.10.1.1:${run.port}, now 127.10.2.1:${run.port}`,
    },
    { type: 'crash', worker: `w${run.pid}-1`, point: 'after-state', partition: 0, batch: 2, occurrence: 1 },
  ];
  return change(events).map((event, i) => ({
    ...event,
    at: run.at + i * 1.5,
    writer: `w${run.pid}-1`,
    pid: run.pid,
    seq: i + 1,
  }));
}

const signature = (events: readonly Stamped[]) => historySignature(events).sha256;

/** One event of the first execution's history changed. */
const edited = <T extends FlowEvent['type']>(
  type: T,
  edit: (event: Extract<Event, { type: T }>) => Extract<Event, { type: T }>,
) =>
  signature(
    history(FIRST, (events) =>
      events.map((event) => (event.type === type ? edit(event as Extract<Event, { type: T }>) : event)),
    ),
  );

describe('history signature', () => {
  it('ignores times, pids, writers, query ids, attempts, retries, endpoints and proxy counters', () => {
    expect(signature(history(SECOND))).toBe(signature(history(FIRST)));
    expect(signature(history(FIRST))).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes when a committed message id changes', () => {
    const other = edited('epoch-commit', (event) => ({
      ...event,
      messageIds: ['1-0-0', '1-0-9'],
    }));
    expect(other).not.toBe(signature(history(FIRST)));
  });

  it('changes when a batch token the sink cut changes, or a batch marked delivered', () => {
    const cut = edited('epoch-commit', (event) => ({
      ...event,
      batches: [event.batches[0]!, { number: 2, token: '1-0-1:s2', messages: 1 }],
    }));
    const delivered = signature(history(FIRST, (events) => events.filter((event) => event.type !== 'delivered')));
    expect(cut).not.toBe(signature(history(FIRST)));
    expect(delivered).not.toBe(signature(history(FIRST)));
  });

  it('changes when a fault differs (another link, another kind, another toxic) or one more started', () => {
    const base = signature(history(FIRST));
    expect(
      edited('fault-start', (event) => ({ ...event, description: 'timeout(s1r2_client, 102ms, upstream)' })),
    ).not.toBe(base);
    expect(edited('fault-start', (event) => ({ ...event, expects: 'landed' }))).not.toBe(base);
    expect(
      edited('fault-start', (event) => ({ ...event, toxic: { stream: 'upstream', attributes: { timeout: 103 } } })),
    ).not.toBe(base);
    const twice = signature(
      history(FIRST, (events) => [...events, ...events.filter((event) => event.type === 'fault-start')]),
    );
    expect(twice).not.toBe(base);
  });

  it('changes when a refusal or a crash differs, but not with the hosts and ports a refusal names', () => {
    const base = signature(history(FIRST));
    expect(edited('partition-refused', (event) => ({ ...event, partition: 0 }))).not.toBe(base);
    expect(edited('partition-refused', (event) => ({ ...event, code: 'TARGETS_CHANGED' }))).not.toBe(base);
    expect(
      signature(history(FIRST, (events) => events.filter((event) => event.type !== 'partition-refused'))),
    ).not.toBe(base);
    expect(edited('crash', (event) => ({ ...event, point: 'before-insert' }))).not.toBe(base);
  });

  it('keeps an at-most-once commit out of the acknowledged ids: only its delivered acks count', () => {
    const atMostOnce = (acks: 'delivered' | 'acked-with-error') =>
      historySignature(
        history(FIRST, (events) => [
          ...events.map((event) =>
            event.type === 'epoch-commit' ? { ...event, sinkClass: 'AtMostOnceClickHouseSink' as const } : event,
          ),
          {
            type: 'acks',
            sink: 'chaos_sink',
            partition: 0,
            epoch: 1,
            acks: [
              { id: '1-0-0', ack: acks },
              { id: '1-0-1', ack: 'delivered' },
            ],
          },
        ]),
      ).projection.acknowledged;
    expect(atMostOnce('delivered')).toEqual(['1-0-0', '1-0-1']);
    expect(atMostOnce('acked-with-error')).toEqual(['1-0-1']);
  });
});
