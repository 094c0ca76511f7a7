/**
 * The named points where a worker can be made to die. `before-insert` and `during-insert` fire
 * from the sink's `InsertObserver` hooks (nothing sent / the whole body sent, response pending);
 * the other two fire in the runtime around the store update that belongs to an insert:
 * - batching: between `deliver(batch)` returning and the batch's delivered mark, and right after it;
 * - at-least-once: between `writeEpoch` returning and the epoch commit, and right after it;
 * - at-most-once: the commit comes FIRST, so `after-state` fires after the commit and before the
 *   write (ordered mode keeps the messages pending), and `after-insert-before-state` after the
 *   write and before the acks are recorded.
 */
export const CRASH_POINTS = ['before-insert', 'during-insert', 'after-insert-before-state', 'after-state'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** Which hit of a point kills the worker: the `occurrence`-th (default 1st) matching hit in this worker. */
export interface CrashPlan {
  readonly point: CrashPoint;
  readonly occurrence?: number;
  readonly partition?: number;
  /**
   * Matches the hit's batch: the outbox batch number (batching), the epoch (at-least-once; and
   * at-most-once's runtime points), or the message seq (at-most-once's insert hooks, as
   * `InsertAttempt.batch` defines it).
   */
  readonly batch?: number;
}
