import type { DynamicParameters } from '../spec/sink-spec.ts';
import { checkDedupWindow, type DedupWindowWarning } from '../target/dedup-window.ts';
import type { DedupWindowFacts } from './dedup-window-facts.ts';
import type { WarnFn } from './session-warnings.ts';

/**
 * Compares `replay_horizon` with the dedup window that applies (the async variant with
 * `async_insert`) and logs the seed's structured warning when the window is shorter. Besides the
 * seed's attributes, `DedupWindowSource` says whether the compared value is the table's own
 * SETTINGS override (`table`) or the server default (`server`), and `Endpoint` where it was read.
 */
export function warnOnShortDedupWindow(
  warn: WarnFn,
  target: { readonly database: string; readonly table: string },
  dynamic: Pick<DynamicParameters, 'async_insert' | 'replay_horizon'>,
  facts: DedupWindowFacts,
): DedupWindowWarning | undefined {
  const warning = checkDedupWindow({
    database: target.database,
    table: target.table,
    asyncInsert: dynamic.async_insert,
    replayHorizonMs: dynamic.replay_horizon,
    windowSeconds: facts.windowSeconds.value,
    asyncWindowSeconds: facts.asyncWindowSeconds.value,
  });
  if (warning) {
    const compared = dynamic.async_insert ? facts.asyncWindowSeconds : facts.windowSeconds;
    warn({
      kind: 'dedup-window-short',
      message:
        'The ClickHouse dedup window is shorter than replay_horizon: a replay arriving after the window is inserted again',
      fields: { ...warning, DedupWindowSource: compared.source, Endpoint: compared.endpoint },
    });
  }
  return warning;
}
