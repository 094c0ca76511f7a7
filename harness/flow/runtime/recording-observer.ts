import type { InsertAttempt, InsertObserver, InsertResult, SentRequest } from '../../../sinks/index.ts';
import type { AttemptKey, HistorySink } from '../history/index.ts';
import type { CrashSwitch } from './crash-points.ts';
import type { InsertGates } from './insert-gates.ts';
import type { InsertTally } from './partition-runtime.ts';

/**
 * The observer every hosted sink gets: records each attempt as invoke / sent / complete, counts
 * the messages the ok ones wrote, implements the two insert-side crash points and holds attempts an armed gate catches. The
 * event is written before the crash point fires, so a crash at `before-insert` still leaves the
 * attempt in the history (never sent).
 */
export function recordingObserver(
  history: HistorySink,
  crash: CrashSwitch,
  gates: InsertGates,
  partition: number,
  inserts: InsertTally,
): InsertObserver {
  const key = (attempt: InsertAttempt): AttemptKey => ({
    sink: attempt.sink,
    partition,
    batch: attempt.batch,
    queryId: attempt.queryId,
    attempt: attempt.attempt,
  });
  return {
    async beforeInsert(attempt: InsertAttempt) {
      history.append({
        type: 'insert-invoke',
        ...key(attempt),
        batchToken: attempt.batchToken,
        dedupToken: attempt.dedupToken,
        shard: attempt.shard,
        endpoint: attempt.endpoint,
        messageIds: attempt.messageIds,
      });
      await crash.at('before-insert', partition, attempt.batch);
      await gates.beforeRequest(partition, attempt);
    },
    async insertSent(attempt: InsertAttempt, sent: SentRequest) {
      history.append({ type: 'insert-sent', ...key(attempt), bytes: sent.bytes });
      await crash.at('during-insert', partition, attempt.batch);
    },
    async afterInsert(attempt: InsertAttempt, result: InsertResult) {
      history.append({
        type: 'insert-complete',
        ...key(attempt),
        outcome: result.outcome,
        startedAt: result.startedAt,
        endedAt: result.endedAt,
        error: result.error,
      });
      if (result.outcome === 'ok') inserts.recordOk(attempt.messageIds);
      await gates.afterOutcome(attempt, result.outcome);
    },
  };
}
