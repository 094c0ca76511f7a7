import { eventsOfType, type RecoveryEvent, type Stamped } from '../../harness/flow/history/index.ts';

/**
 * One heal's recovery as the history recorded it, with what the sink did after it: the first
 * INSERT that ended `ok` after the heal (before the recovery ended), and how long from the heal
 * to it and to the drained backlog.
 */
export interface RecoveryRecord extends Omit<RecoveryEvent, 'type'> {
  /** Heal → the first INSERT that ended `ok` after it, within the recovery; undefined when none did (nothing was pending). */
  readonly firstOkMs?: number;
  /** Heal → drained; undefined for a stalled recovery. */
  readonly drainedMs?: number;
}

/** Every recovery of a run, in the order they ended, with the first `ok` INSERT after each heal. */
export function recoveriesOf(events: readonly Stamped[]): RecoveryRecord[] {
  const okEnds = eventsOfType(events, 'insert-complete')
    .filter((complete) => complete.outcome === 'ok')
    .map((complete) => complete.endedAt);
  return eventsOfType(events, 'recovery').map(({ type: _type, at: _at, writer: _w, pid: _p, seq: _s, ...recovery }) => {
    const firstOk = Math.min(
      ...okEnds.filter((endedAt) => endedAt >= recovery.healedAt && endedAt <= recovery.endedAt),
    );
    return {
      ...recovery,
      ...(Number.isFinite(firstOk) ? { firstOkMs: firstOk - recovery.healedAt } : {}),
      ...(recovery.outcome === 'drained' ? { drainedMs: recovery.endedAt - recovery.healedAt } : {}),
    };
  });
}

/** How one recovery reads in a report line: which heal, and its figures. */
export function describeRecovery(recovery: RecoveryRecord): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const { bound } = recovery;
  const which = recovery.trigger === 'episode' ? `fault window ${recovery.window ?? '?'}` : 'settle';
  const boundText = `bound ${seconds(bound.ms)} = 2 × write_timeout ${bound.writeTimeoutMs} ms + retry_backoff ${bound.retryBackoffMs} ms + slack ${bound.slackMs} ms`;
  const firstOk =
    recovery.firstOkMs === undefined ? 'no INSERT pending' : `first ok INSERT ${seconds(recovery.firstOkMs)}`;
  const healthy = `healthy after ${seconds(recovery.healthyAt - recovery.healedAt)}`;
  const idle = recovery.endedAt - (recovery.progressAt ?? recovery.healthyAt);
  return recovery.outcome === 'stalled'
    ? `${which}: no progress for ${seconds(idle)}, not drained ${seconds(recovery.endedAt - recovery.healthyAt)} after the cluster was healthy (${healthy}; ${firstOk}; ${boundText})`
    : `${which}: ${healthy}, ${firstOk}, drained ${seconds(recovery.drainedMs ?? 0)} after the heal (${boundText})`;
}
