import type { FlowEvent } from './history-events.ts';

/** Where the runtime records events: a `HistoryWriter` in a worker, an array in unit tests. */
export interface HistorySink {
  append(event: FlowEvent): void;
}
