import { describe, expect, it } from 'vitest';
import type { Stamped } from '../../harness/flow/history/index.ts';
import type { RawSinkSpec } from '../arbitraries/index.ts';
import { boundaryWrites } from './boundary-evidence.ts';
import { specPeriods } from './spec-periods.ts';

const spec = (dynamic: Record<string, unknown>): RawSinkSpec => ({
  sink_class_name: 'ClickHouseBatchingSink',
  name: 's',
  parameters: { host: '127.10.1.1' },
  dynamic_parameters: dynamic,
});
const stamp = (at: number) => ({ at, writer: 'w', pid: 1, seq: at });
const launch = (at: number, launched: RawSinkSpec) =>
  ({ type: 'worker-launch', worker: 'w', workerPid: 1, spec: launched, ...stamp(at) }) as unknown as Stamped;
const invoke = (at: number) =>
  ({
    type: 'insert-invoke',
    sink: 's',
    partition: 0,
    batch: 1,
    queryId: 'q',
    attempt: 1,
    ...stamp(at),
  }) as unknown as Stamped;

describe('boundaryWrites', () => {
  it('counts a boundary only for writes made while a spec on it was in force', () => {
    const events = [
      launch(1, spec({ max_insert_attempts: 4 })),
      invoke(2),
      launch(3, spec({ max_insert_attempts: 1 })),
      invoke(4),
      invoke(5),
      launch(6, spec({ max_insert_attempts: 1, max_rows_per_batch: 1 })),
    ];
    const writes = boundaryWrites(events, specPeriods(events));
    expect(writes.get('max_insert_attempts = 1')).toBe(2);
    expect(writes.get('host')).toBe(3);
    // Launched on it, but the sink wrote nothing there: not run.
    expect(writes.has('max_rows_per_batch = 1')).toBe(false);
  });
});
