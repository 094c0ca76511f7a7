import { eventsOfType } from '../../harness/flow/history/history-reader.ts';
import type { FaultEndEvent, FaultStartEvent, Stamped } from '../../harness/flow/history/history-events.ts';
import type { FaultType } from '../../harness/flow/history/fault-type.ts';
import type { AttemptRecord } from './observations.ts';

/** A fault that was applied or armed and acted on nothing, and why. */
export interface MissedFault {
  readonly fault: FaultType;
  readonly reason: string;
}

export interface FaultEvidence {
  /** Fault type -> times it met the INSERT it was aimed at (or was witnessed on the cluster). */
  readonly fired: ReadonlyMap<FaultType, number>;
  readonly missed: readonly MissedFault[];
}

/** Held by the fault at least this long before its heal (an unfaulted INSERT here takes 15-65 ms). */
const BLOCKED_MIN_MS = 200;

/**
 * Which faults of a run demonstrably fired, from the stored history alone: each `fault-start`
 * names the INSERT attempt it was aimed at, and that attempt's own record must show the fault's
 * effect (`FaultEffect`); process faults must also have been verified by the nemesis. A fault
 * armed on an INSERT that never came (`fault-missed`) fired nothing.
 */
export function faultEvidence(events: readonly Stamped[], attempts: readonly AttemptRecord[]): FaultEvidence {
  const byQuery = new Map(attempts.map((attempt) => [attempt.queryId, attempt]));
  const ends = new Map(eventsOfType(events, 'fault-end').map((end) => [end.window, end]));
  const fired = new Map<FaultType, number>();
  const missed: MissedFault[] = [];
  for (const start of eventsOfType(events, 'fault-start')) {
    const end = ends.get(start.window);
    const aimed = start.aimedAt === undefined ? undefined : byQuery.get(start.aimedAt.queryId);
    const reason = notFired(start, end, aimed);
    if (reason === undefined) fired.set(start.fault, (fired.get(start.fault) ?? 0) + 1);
    else missed.push({ fault: start.fault, reason: `${start.description}: ${reason}` });
  }
  for (const miss of eventsOfType(events, 'fault-missed'))
    missed.push({ fault: miss.fault, reason: `${miss.description}: ${miss.reason}` });
  return { fired, missed };
}

const PROCESS_FAULTS: ReadonlySet<FaultType> = new Set([
  'replica_kill',
  'replica_pause',
  'keeper_pause',
  'keeper_kill',
  'keeper_quorum_loss',
]);

function notFired(
  start: Stamped<FaultStartEvent>,
  end: Stamped<FaultEndEvent> | undefined,
  aimed: AttemptRecord | undefined,
): string | undefined {
  if (end === undefined) return 'never healed (the run ended inside it)';
  if (start.effect === 'witness') return end.verified ? undefined : 'the cluster never showed its effect';
  if (aimed === undefined) return 'the INSERT it was aimed at is not in the history';
  if (PROCESS_FAULTS.has(start.fault) && end.verified !== true) return 'the process was never seen stopped';
  switch (start.effect) {
    case 'error':
      return aimed.outcome !== 'ok' ? undefined : `the aimed INSERT ${aimed.queryId} still succeeded`;
    case 'slow':
    case 'stalled':
      if (start.effect === 'stalled' && aimed.outcome !== 'ok') return undefined;
      return aimed.endedAt - aimed.startedAt >= (start.slowerThanMs ?? 0)
        ? undefined
        : `the aimed INSERT took ${Math.round(aimed.endedAt - aimed.startedAt)} ms, less than ${start.slowerThanMs} ms`;
    case 'blocked': {
      if (aimed.outcome !== 'ok') return undefined;
      const healStart = end.healStartedAt ?? end.at;
      if (healStart - aimed.startedAt < BLOCKED_MIN_MS)
        return `healed ${Math.round(healStart - aimed.startedAt)} ms after the aimed INSERT started, too soon to show it was blocked`;
      return aimed.endedAt >= healStart ? undefined : `the aimed INSERT ${aimed.queryId} succeeded before the heal`;
    }
    case 'traffic':
      return aimed.sent ? undefined : `the aimed INSERT ${aimed.queryId} never sent its body`;
  }
}
