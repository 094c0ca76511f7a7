import { describe, expect, it } from 'vitest';
import { insertPerformance } from './performance.ts';
import { sampleEvents } from './test-support.ts';
import { mostEventfulRun, runTimelines } from './timeline.ts';

describe('runTimelines', () => {
  const timelines = runTimelines(sampleEvents());
  const [calm, eventful] = timelines;

  it('cuts the merged history into runs, times relative to each run', () => {
    expect(timelines.map((timeline) => [timeline.sinkClass, timeline.scenario, timeline.run])).toEqual([
      ['ClickHouseBatchingSink', 'unknown-outcome', 'run-0'],
      ['ClickHouseBatchingSink', 'unknown-outcome', 'run-1'],
    ]);
    expect(calm?.origin).toBe(1_000);
    expect(calm?.inserts).toEqual([
      { start: 100, end: 120, completed: true, outcome: 'ok', rows: 3, retry: false },
      { start: 200, end: 260, completed: true, outcome: 'ok', rows: 5, retry: false },
    ]);
    expect(eventful?.duration).toBe(2_000);
  });

  it('pairs fault windows, and leaves one never healed open until the run ends', () => {
    expect(eventful?.faults.map((fault) => [fault.fault, fault.start, fault.end])).toEqual([
      ['reset_peer', 100, 500],
      ['timeout', 1_600, 2_000],
    ]);
  });

  it('keeps an attempt cut short by a crash as unknown, marks retries, crashes, refusals and starts', () => {
    expect(eventful?.inserts.map((insert) => [insert.outcome, insert.retry])).toEqual([
      ['unknown', false],
      ['ok', true],
      ['unknown', false],
      ['failed', false],
    ]);
    expect(eventful?.inserts[2]).toMatchObject({ start: 1_000, end: 1_000, completed: false });
    expect(eventful?.marks.map((mark) => mark.kind).sort()).toEqual(['crash', 'refusal', 'worker-start']);
    expect(calm?.marks.find((mark) => mark.kind === 'reconfigure')).toEqual({
      at: 230,
      kind: 'reconfigure',
      label: 'reconfigured: {"write_timeout":4000}',
    });
  });

  it('shows the run with the most failed or unknown INSERTs', () => {
    expect(mostEventfulRun(timelines)?.run).toBe('run-1');
    expect(mostEventfulRun([calm!])?.run).toBe('run-0');
    expect(mostEventfulRun([])).toBeUndefined();
  });
});

describe('insertPerformance', () => {
  it('takes latency from successful attempts and rows per second of insert activity', () => {
    const performance = insertPerformance(runTimelines(sampleEvents()));
    expect(performance).toMatchObject({ attempts: 6, okAttempts: 3 });
    // ok latencies 20, 40, 60 ms
    expect(performance.latencyMs).toEqual({ p50: 40, p95: 60, p99: 60, max: 60 });
    // 11 rows in ok INSERTs over 160 ms (run-0) + 1_800 ms (run-1) of activity
    expect(performance.rowsPerSecond).toBeCloseTo((11 * 1000) / 1_960, 6);
  });

  it('says null when nothing succeeded', () => {
    expect(insertPerformance([])).toEqual({
      attempts: 0,
      okAttempts: 0,
      latencyMs: null,
      rowsPerSecond: null,
      recovery: { heals: 0, stalled: 0, firstOkMs: null, drainedMs: null, boundMs: null },
    });
  });

  it('measures each heal to the first ok INSERT after it and to the drained backlog, and counts a stall', () => {
    // run-1: healed at 10 490, retried ok at 10 640, drained at 10 700; the settle phase stalled.
    expect(insertPerformance(runTimelines(sampleEvents())).recovery).toEqual({
      heals: 2,
      stalled: 1,
      firstOkMs: { p50: 150, p95: 150 },
      drainedMs: { p50: 210, p95: 210 },
      boundMs: 16_100,
    });
  });
});
