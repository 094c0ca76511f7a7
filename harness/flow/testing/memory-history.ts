import type { FlowEvent, HistorySink } from '../history/index.ts';
import type { CrashAction, CrashHit } from '../runtime/crash-points.ts';

/** The history of an in-process test run. */
export class MemoryHistory implements HistorySink {
  readonly events: FlowEvent[] = [];

  append(event: FlowEvent): void {
    this.events.push(event);
  }

  ofType<T extends FlowEvent['type']>(type: T): Extract<FlowEvent, { type: T }>[] {
    return this.events.filter((event): event is Extract<FlowEvent, { type: T }> => event.type === type);
  }
}

/**
 * The in-process stand-in for a worker's SIGKILL: the runtime stops dead at the hit (the action
 * never settles, so nothing after the crash point runs) and the test starts a new runtime on the
 * same store. Only the child-process tests and the real tier kill a process.
 */
export function freezingCrash(): { readonly action: CrashAction; readonly hit: Promise<CrashHit> } {
  let resolveHit: (hit: CrashHit) => void = () => undefined;
  const hit = new Promise<CrashHit>((resolve) => {
    resolveHit = resolve;
  });
  return {
    hit,
    action: (crash) => {
      resolveHit(crash);
      return new Promise<never>(() => undefined);
    },
  };
}
