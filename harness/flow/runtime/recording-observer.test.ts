import { describe, expect, it } from 'vitest';
import type { InsertAttempt, InsertOutcome } from '../../../sinks/index.ts';
import type { FlowEvent } from '../history/index.ts';
import { CrashSwitch } from './crash-points.ts';
import { InsertGates } from './insert-gates.ts';
import { InsertTally } from './partition-runtime.ts';
import { recordingObserver } from './recording-observer.ts';

const attempt = (batch: number): InsertAttempt => ({
  sink: 's',
  batch,
  shard: null,
  endpoint: '127.10.1.1:8123',
  queryId: `q${batch}`,
  attempt: 1,
  messageIds: [],
});

describe('recordingObserver', () => {
  it('counts the INSERTs that got an ok, the progress a long write makes while its partition stands still', async () => {
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
    const outcomes: InsertOutcome[] = ['ok', 'failed', 'unknown', 'ok'];
    for (const [batch, outcome] of outcomes.entries()) {
      await observer.beforeInsert?.(attempt(batch));
      await observer.afterInsert?.(attempt(batch), { outcome, startedAt: 0, endedAt: 1 });
    }
    expect(inserts.ok).toBe(2);
    expect(events.filter((event) => event.type === 'insert-complete')).toHaveLength(4);
  });
});
