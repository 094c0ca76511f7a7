import { describe, expect, it } from 'vitest';
import type { InsertAttempt } from '../../../sinks/index.ts';
import { messageId } from '../../../sinks/domain/message-id.ts';
import type { GatedAttempt, HistorySink } from '../history/index.ts';
import { InsertGates } from './insert-gates.ts';

const attempt = (batch: number, n: number, shard: string | null = null): InsertAttempt => ({
  sink: 's',
  batch,
  shard: shard as InsertAttempt['shard'],
  endpoint: 'a:1',
  queryId: `q-${batch}-${n}${shard === null ? '' : `-${shard}`}`,
  messageIds: [messageId('1-0-1')],
  attempt: n,
});

/** Gates whose driver opens every hold at once, keeping what each caught at `request`. */
function recordingGates(): { caught: GatedAttempt[]; gates: InsertGates } {
  const caught: GatedAttempt[] = [];
  const gates = new InsertGates({ hold: async (phase, gated) => void (phase === 'request' && caught.push(gated)) }, {
    append: () => undefined,
  } as unknown as HistorySink);
  return { caught, gates };
}

describe('InsertGates', () => {
  it('a first-attempt gate lets retries pass and catches the next batch’s first attempt', async () => {
    const { caught, gates } = recordingGates();
    gates.arm({ id: 1, firstAttempt: true });
    await gates.beforeRequest(0, attempt(3, 2));
    await gates.beforeRequest(0, attempt(3, 3));
    await gates.beforeRequest(0, attempt(4, 1));
    gates.arm({ id: 2 });
    await gates.beforeRequest(0, attempt(4, 2));
    expect(caught.map((gated) => [gated.gate, gated.queryId])).toEqual([
      [1, 'q-4-1'],
      [2, 'q-4-2'],
    ]);
  });

  it('a retry gate catches only a later attempt of the same batch and shard on its partition', async () => {
    const { caught, gates } = recordingGates();
    gates.arm({ id: 1, partition: 0, retryOf: { batch: 3, shard: 's1', attempt: 2 } });
    await gates.beforeRequest(1, attempt(3, 3, 's1'));
    await gates.beforeRequest(0, attempt(3, 2, 's1'));
    await gates.beforeRequest(0, attempt(3, 3, 's2'));
    await gates.beforeRequest(0, attempt(4, 3, 's1'));
    await gates.beforeRequest(0, attempt(3, 3, 's1'));
    await gates.beforeRequest(0, attempt(3, 4, 's1'));
    expect(caught.map((gated) => [gated.partition, gated.queryId])).toEqual([[0, 'q-3-3-s1']]);
  });

  it('a gate for an attempt alone on its shard holds one back until the shard is quiet, then catches it', async () => {
    const { caught, gates } = recordingGates();
    const busy = attempt(1, 1, 's1');
    await gates.beforeRequest(0, busy);
    gates.arm({ id: 1, aloneOnShard: true });
    let waited = false;
    const waiting = gates.beforeRequest(1, attempt(2, 1, 's1')).then(() => void (waited = true));
    await gates.beforeRequest(1, attempt(3, 1, 's2'));
    expect(caught.map((gated) => gated.queryId)).toEqual(['q-3-1-s2']);
    gates.arm({ id: 2, aloneOnShard: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(waited).toBe(false);
    await gates.afterOutcome(busy, 'ok');
    await waiting;
    expect(caught.map((gated) => [gated.gate, gated.queryId])).toEqual([
      [1, 'q-3-1-s2'],
      [2, 'q-2-1-s1'],
    ]);
  });

  it('until the outcome of an attempt caught alone is let go, the other attempts to its shard wait for it', async () => {
    const order: string[] = [];
    let letGo: () => void = () => undefined;
    const gates = new InsertGates(
      {
        hold: (phase) => (phase === 'request' ? new Promise<void>((resolve) => (letGo = resolve)) : Promise.resolve()),
      },
      { append: () => undefined } as unknown as HistorySink,
    );
    gates.arm({ id: 1, aloneOnShard: true });
    const caught = attempt(1, 1, 's1');
    const aimed = gates.beforeRequest(0, caught).then(() => order.push('aimed'));
    const other = gates.beforeRequest(1, attempt(2, 1, 's1')).then(() => order.push('other'));
    await gates.beforeRequest(1, attempt(3, 1, 's2')).then(() => order.push('elsewhere'));
    letGo();
    await aimed;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(['elsewhere', 'aimed']);
    await gates.afterOutcome(caught, 'unknown');
    await other;
    expect(order).toEqual(['elsewhere', 'aimed', 'other']);
  });

  it('an attempt waiting for its shard to go quiet passes uncaught once the gate is disarmed or its wait ran out', async () => {
    const caught: GatedAttempt[] = [];
    const gates = new InsertGates(
      { hold: async (phase, gated) => void (phase === 'request' && caught.push(gated)) },
      { append: () => undefined } as unknown as HistorySink,
      50,
    );
    await gates.beforeRequest(0, attempt(1, 1, 's1'));
    gates.arm({ id: 1, aloneOnShard: true });
    const waiting = gates.beforeRequest(1, attempt(2, 1, 's1'));
    expect(gates.disarm(1)).toBe(true);
    await waiting;
    gates.arm({ id: 2, aloneOnShard: true });
    const startedAt = Date.now();
    await gates.beforeRequest(1, attempt(3, 1, 's1'));
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(45);
    expect(caught).toEqual([]);
  });

  it('when the hold of an attempt caught alone fails (its driver died), the attempts waiting for it go on', async () => {
    let fail: (error: Error) => void = () => undefined;
    const gates = new InsertGates(
      {
        hold: (phase) => (phase === 'request' ? new Promise<void>((_, reject) => (fail = reject)) : Promise.resolve()),
      },
      { append: () => undefined } as unknown as HistorySink,
    );
    gates.arm({ id: 1, aloneOnShard: true });
    const aimed = gates.beforeRequest(0, attempt(1, 1, 's1'));
    const other = gates.beforeRequest(1, attempt(2, 1, 's1'));
    fail(new Error('the driver died'));
    await expect(aimed).rejects.toThrow('the driver died');
    await expect(other).resolves.toBeUndefined();
  });
});
