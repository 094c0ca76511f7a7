import { formatDuration } from '../spec/duration.ts';

export interface DedupWindowInput {
  readonly database: string;
  readonly table: string;
  readonly asyncInsert: boolean;
  /** `replay_horizon`, milliseconds. */
  readonly replayHorizonMs: number;
  /** The server's `replicated_deduplication_window_seconds`. */
  readonly windowSeconds: number;
  /** The server's `replicated_deduplication_window_seconds_for_async_inserts`. */
  readonly asyncWindowSeconds: number;
}

/** The structured warning's attributes, named as the seed names them. */
export interface DedupWindowWarning {
  readonly Database: string;
  readonly Table: string;
  readonly DedupWindowSetting: string;
  readonly ReplayHorizon: string;
  readonly DedupWindow: string;
}

/**
 * The session-start comparison of `replay_horizon` with the dedup window that applies (the async
 * variant when `async_insert` is on): a window shorter than the horizon means a late replay can
 * be inserted again, which deserves a warning (not a refusal).
 */
export function checkDedupWindow(input: DedupWindowInput): DedupWindowWarning | undefined {
  const setting = input.asyncInsert
    ? 'replicated_deduplication_window_seconds_for_async_inserts'
    : 'replicated_deduplication_window_seconds';
  const windowMs = (input.asyncInsert ? input.asyncWindowSeconds : input.windowSeconds) * 1000;
  if (windowMs >= input.replayHorizonMs) return undefined;
  return {
    Database: input.database,
    Table: input.table,
    DedupWindowSetting: setting,
    ReplayHorizon: formatDuration(input.replayHorizonMs),
    DedupWindow: formatDuration(windowMs),
  };
}
