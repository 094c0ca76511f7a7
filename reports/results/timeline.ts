import { eventsOfType, insertAttempts, type Stamped } from '../../harness/flow/history/index.ts';
import { recoveriesOf, type RecoveryRecord } from '../../properties/checkers/index.ts';
import type { InsertOutcome } from '../../sinks/index.ts';
import type { JudgedClassName } from '../../properties/base/index.ts';
import { parseScenarioDirName } from './scenario-dir.ts';

/** A history event of the chaos job's merged `history.jsonl`: tagged with its scenario directory and run. */
export type TaggedEvent = Stamped & { readonly scenario: string; readonly run: string };

/** Times are milliseconds since the run's first event. */
export interface TimelineInsert {
  readonly start: number;
  /** `start` when the attempt never completed (its worker died first): its latency is unknown. */
  readonly end: number;
  readonly completed: boolean;
  readonly outcome: InsertOutcome;
  readonly rows: number;
  /** A later attempt of the same batch (a retry or a replay after a restart). */
  readonly retry: boolean;
}

export interface TimelineFault {
  readonly fault: string;
  readonly description: string;
  readonly start: number;
  /** The run's end when the fault was never healed (the run failed in between). */
  readonly end: number;
}

export interface TimelineMark {
  readonly at: number;
  readonly kind: 'crash' | 'refusal' | 'worker-start' | 'reconfigure';
  readonly label: string;
}

/** One run of one class x scenario, as the report draws it. */
export interface RunTimeline {
  readonly sinkClass: JudgedClassName;
  readonly scenario: string;
  readonly run: string;
  /** Wall-clock ms of the first event. */
  readonly origin: number;
  readonly duration: number;
  readonly inserts: readonly TimelineInsert[];
  readonly faults: readonly TimelineFault[];
  readonly marks: readonly TimelineMark[];
  /** Every heal's recovery the executor watched, with its figures (wall-clock times, as recorded). */
  readonly recoveries: readonly RecoveryRecord[];
}

/** The merged history cut into runs: one timeline per scenario directory (`<class>__<scenario>`) and run. */
export function runTimelines(events: readonly TaggedEvent[]): RunTimeline[] {
  const byRun = new Map<string, TaggedEvent[]>();
  for (const event of events) {
    const key = `${event.scenario}\u0000${event.run}`;
    const list = byRun.get(key);
    if (list === undefined) byRun.set(key, [event]);
    else list.push(event);
  }
  return [...byRun.values()].map(timelineOf).sort((a, b) => a.origin - b.origin);
}

function timelineOf(events: TaggedEvent[]): RunTimeline {
  const sorted = [...events].sort((a, b) => a.at - b.at);
  const first = sorted[0] as TaggedEvent;
  const origin = first.at;
  const last = Math.max(
    ...sorted.map((event) => Math.max(event.at, event.type === 'insert-complete' ? event.endedAt : 0)),
  );
  const duration = last - origin;
  const { sinkClass, scenario } = parseScenarioDirName(first.scenario);

  const inserts = insertAttempts(sorted).map((attempt): TimelineInsert => {
    const start = (attempt.complete?.startedAt ?? attempt.invoke.at) - origin;
    return {
      start,
      end: attempt.complete === undefined ? start : attempt.complete.endedAt - origin,
      completed: attempt.complete !== undefined,
      outcome: attempt.outcome,
      rows: attempt.invoke.messageIds.length,
      retry: attempt.invoke.attempt > 1,
    };
  });

  const ends = new Map(eventsOfType(sorted, 'fault-end').map((event) => [event.window, event.at - origin]));
  const faults = eventsOfType(sorted, 'fault-start').map((event) => ({
    fault: event.fault,
    description: event.description,
    start: event.at - origin,
    end: ends.get(event.window) ?? duration,
  }));

  const marks: TimelineMark[] = [
    ...eventsOfType(sorted, 'crash').map((event) => ({
      at: event.at - origin,
      kind: 'crash' as const,
      label: `crash at ${event.point}`,
    })),
    ...eventsOfType(sorted, 'partition-refused').map((event) => ({
      at: event.at - origin,
      kind: 'refusal' as const,
      label: `partition ${event.partition} refused: ${event.code}`,
    })),
    ...eventsOfType(sorted, 'reconfigured').map((event) => ({
      at: event.startedAt - origin,
      kind: 'reconfigure' as const,
      label: `reconfigured: ${JSON.stringify(event.dynamic)}`,
    })),
    ...eventsOfType(sorted, 'worker-start').map((event) => ({
      at: event.at - origin,
      kind: 'worker-start' as const,
      label: `worker ${event.worker} started`,
    })),
  ];
  return {
    sinkClass,
    scenario,
    run: first.run,
    origin,
    duration,
    inserts,
    faults,
    marks,
    recoveries: recoveriesOf(sorted),
  };
}

/**
 * The run a report shows for a class x scenario: the one where most went wrong on the wire
 * (unknown and failed INSERTs, then faults), the first of equals. Undefined when no run has events.
 */
export function mostEventfulRun(timelines: readonly RunTimeline[]): RunTimeline | undefined {
  const score = (timeline: RunTimeline): [number, number] => [
    timeline.inserts.filter((insert) => insert.outcome !== 'ok').length,
    timeline.faults.length,
  ];
  let best: RunTimeline | undefined;
  for (const timeline of timelines) {
    if (best === undefined) {
      best = timeline;
      continue;
    }
    const [a1, a2] = score(timeline);
    const [b1, b2] = score(best);
    if (a1 > b1 || (a1 === b1 && a2 > b2)) best = timeline;
  }
  return best;
}
