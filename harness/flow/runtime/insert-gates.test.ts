import { describe, expect, it } from 'vitest';
import type { InsertAttempt } from '../../../sinks/index.ts';
import { messageId } from '../../../sinks/domain/message-id.ts';
import type { GatedAttempt, HistorySink } from '../history/index.ts';
import { InsertGates } from './insert-gates.ts';

const attempt = (batch: number, n: number): InsertAttempt => ({
  sink: 's',
  batch,
  shard: null,
  endpoint: 'a:1',
  queryId: `q-${batch}-${n}`,
  messageIds: [messageId('1-0-1')],
  attempt: n,
});

describe('InsertGates', () => {
  it('a first-attempt gate lets retries pass and catches the next batch’s first attempt', async () => {
    const caught: GatedAttempt[] = [];
    const gates = new InsertGates({ hold: async (phase, gated) => void (phase === 'request' && caught.push(gated)) }, {
      append: () => undefined,
    } as unknown as HistorySink);
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
});
