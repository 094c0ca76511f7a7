import { describe, expect, it } from 'vitest';
import { formatMessageId, type InsertAttempt, type InsertOutcome } from '../../../sinks/index.ts';
import type { FlowEvent } from '../history/index.ts';
import { CrashSwitch } from './crash-points.ts';
import { InsertGates } from './insert-gates.ts';
import { InsertTally } from './partition-runtime.ts';
import { recordingObserver } from './recording-observer.ts';

const id = (seq: number) => formatMessageId({ generation: 1, partition: 0, seq });
const attempt = (batch: number, seqs: readonly number[]): InsertAttempt => ({
  sink: 's',
  batch,
  shard: null,
  endpoint: '127.10.1.1:8123',
  queryId: `q${batch}`,
  attempt: 1,
  messageIds: seqs.map(id),
});

describe('recordingObserver', () => {
  it('counts the messages ok INSERTs wrote, once each: the progress a long write makes while its partition stands still', async () => {
    const events: FlowEvent[] = [];
    const history = { append: (event: FlowEvent) => events.push(event) };
    const inserts = new InsertTally();
    const observer = recordingObserver(
      history,
      new CrashSwitch(undefined, async () => undefined as never),
      new InsertGates(undefined, history),
      0,
      inserts,
    );
    // Two ok INSERTs of new rows, a failed and an unknown one, then the first rows sent again ok.
    const steps: [InsertOutcome, number[]][] = [
      ['ok', [1, 2]],
      ['failed', [3]],
      ['unknown', [4]],
      ['ok', [5]],
      ['ok', [1, 2]],
    ];
    for (const [batch, [outcome, seqs]] of steps.entries()) {
      await observer.beforeInsert?.(attempt(batch, seqs));
      await observer.afterInsert?.(attempt(batch, seqs), { outcome, startedAt: 0, endedAt: 1 });
    }
    expect(inserts.messagesWritten).toBe(3);
    expect(events.filter((event) => event.type === 'insert-complete')).toHaveLength(5);
  });
});
