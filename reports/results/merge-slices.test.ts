import { describe, expect, it } from 'vitest';
import { type RunId, seedOf } from '../../harness/base/index.ts';
import type { DeliveryGuarantee, SinkClassName } from '../../sinks/index.ts';
import { classReport } from './class-report.ts';
import { NO_TALLY } from './tally.ts';
import { mergeSliceRuns, type MatrixCatalogue, type SliceRun } from './merge-slices.ts';
import { insertPerformance } from './performance.ts';
import type { JobReport, JobSelection, ScenarioReport } from './job-report.ts';
import { sampleEvents } from './test-support.ts';
import { runTimelines } from './timeline.ts';

const CLASSES: Partial<Record<SinkClassName, DeliveryGuarantee>> = {
  ClickHouseBatchingSink: 'exactly-once',
  AtLeastOnceClickHouseSink: 'at-least-once',
  AtMostOnceClickHouseSink: 'at-most-once',
};
const SCENARIOS = ['unknown-outcome', 'network-degradation', 'replica-faults', 'sink-crash', 'at-most-once-queue'];

/** A distinct result per pair, so a pair reported twice or dropped changes the sums. */
const result = (sinkClass: SinkClassName, name: string, position: number): ScenarioReport => ({
  name,
  sinkClass,
  verdict: position === 4 ? 'inconclusive' : 'pass',
  seed: seedOf(9),
  replayCommand: `npm run chaos -- --sink ${sinkClass} --scenario ${name} --seed 9`,
  runs: 1 + (position % 3),
  shrinkRuns: 0,
  stopped: 'covered',
  durationMs: 1000 * position,
  phases: { trafficMs: 10, healMs: 1, checkMs: 1 },
  tally: {
    ...NO_TALLY,
    runs: 1 + (position % 3),
    counts: {
      attempted: 10 + position,
      acknowledged: 10 + position,
      lost: 0,
      duplicated: position % 2,
      unexpected: 0,
      recovered: 1,
      gaveUp: 0,
    },
    inserts: { ok: position, failed: 1, unknown: 2 },
    replays: position,
    dedupHits: 1,
    unknownOutcomes: { landed: 1, absent: position % 2, unresolved: 0 },
    serverDedup: CLASSES[sinkClass] === 'exactly-once' ? null : { offRuns: 1, onRuns: 0, acceptedTwice: 0 },
    faults: { reset_peer: position },
  },
  anomalies: [],
  giveUps: [],
  notes: [],
  commands: [],
  configurations: [],
});

const PAIRS = (Object.keys(CLASSES) as SinkClassName[]).flatMap((sinkClass) =>
  SCENARIOS.filter((name) => name !== 'at-most-once-queue' || sinkClass === 'AtMostOnceClickHouseSink').map((name) => ({
    sinkClass,
    name,
  })),
);
const EVENTS = sampleEvents('ClickHouseBatchingSink__unknown-outcome');
const SELECTION: JobSelection = {
  classes: Object.keys(CLASSES) as SinkClassName[],
  scenarios: SCENARIOS,
  serverDedup: 'alternate',
  path: null,
};

/** As the chaos job cuts its matrix (chaos/matrix-slice.ts): the selection's pairs, every count-th. */
const catalogue: MatrixCatalogue = {
  classRank: (name) => Object.keys(CLASSES).indexOf(name),
  scenarioRank: (name) => SCENARIOS.indexOf(name),
  slicePairs: (selection, slice) => {
    const [index = 0, count = 0] = slice.split('/').map(Number);
    return PAIRS.filter((pair) => selection.classes.includes(pair.sinkClass) && selection.scenarios.includes(pair.name))
      .filter((_, position) => position % count === index - 1)
      .map((pair) => `${pair.sinkClass}/${pair.name}`);
  },
};

function runOf(pairs: typeof PAIRS, slice: string | null, events: SliceRun['events']): JobReport {
  const timelines = runTimelines(events);
  const classes = Object.fromEntries(
    Object.entries(CLASSES)
      .filter(([sinkClass]) => pairs.some((pair) => pair.sinkClass === sinkClass))
      .map(([sinkClass, guarantee]) => [
        sinkClass,
        classReport(
          guarantee as DeliveryGuarantee,
          pairs
            .filter((pair) => pair.sinkClass === sinkClass)
            .map((pair) => result(pair.sinkClass, pair.name, PAIRS.indexOf(pair))),
          insertPerformance(timelines.filter((timeline) => timeline.sinkClass === sinkClass)),
        ),
      ]),
  );
  return {
    runId: `run-${slice}` as RunId,
    backend: 'embedded',
    backendLimits: [],
    seed: seedOf(9),
    profile: 'ci',
    slice,
    startedAt: `2026-12-01T00:00:0${slice?.[0] ?? 0}Z`,
    durationMs: 1000,
    clusterStartMs: 5,
    clusterMemory: null,
    verdict: 'pass',
    classes,
    interrupted: false,
    selection: SELECTION,
    commit: 'c0ffee',
  };
}

function slices(count: number): SliceRun[] {
  return Array.from({ length: count }, (_, i) => {
    // As `--shard` cuts the matrix (chaos/matrix-slice.ts): every count-th pair.
    const pairs = PAIRS.filter((_, position) => position % count === i);
    const events = pairs.some((pair) => pair.sinkClass === 'ClickHouseBatchingSink' && pair.name === 'unknown-outcome')
      ? EVENTS
      : [];
    return { run: runOf(pairs, `${i + 1}/${count}`, events), events };
  });
}

describe('mergeSliceRuns', () => {
  it.each([1, 2, 3, 5])(
    'the union of %i slices is the unsliced matrix: same classes, scenarios, figures and verdict',
    (count) => {
      const whole = runOf(PAIRS, null, EVENTS);
      const { run } = mergeSliceRuns(slices(count), catalogue, 'merged' as RunId);
      expect(run.classes).toEqual(whole.classes);
      expect(run.verdict).toBe('inconclusive');
      expect(run.slice).toBe(Array.from({ length: count }, (_, i) => `${i + 1}/${count}`).join(' + '));
    },
  );

  it('refuses a missing slice, a slice given twice, slices of other seeds and unsliced runs', () => {
    const three = slices(3);
    expect(() => mergeSliceRuns([three[0]!, three[2]!], catalogue, 'm' as RunId)).toThrow('slice 2/3 is missing');
    expect(() => mergeSliceRuns([...three, three[1]!], catalogue, 'm' as RunId)).toThrow(/slice 2\/3 is given twice/);
    expect(() =>
      mergeSliceRuns(
        [three[0]!, three[1]!, { ...three[2]!, run: { ...three[2]!.run, seed: seedOf(10) } }],
        catalogue,
        'm' as RunId,
      ),
    ).toThrow(/share seed, profile and backend/);
    expect(() => mergeSliceRuns([{ run: runOf(PAIRS, null, []), events: [] }], catalogue, 'm' as RunId)).toThrow(
      /is not a slice/,
    );
    expect(() => mergeSliceRuns([], catalogue, 'm' as RunId)).toThrow(/nothing to merge/);
  });

  it("refuses a slice without a verdict for a pair its selection gives it (the audit's partial merge)", () => {
    const [first, second] = slices(2);
    const empty = { ...second!, run: { ...second!.run, classes: {}, verdict: 'inconclusive' as const } };
    expect(() => mergeSliceRuns([first!, empty], catalogue, 'm' as RunId)).toThrow(
      /^slice 2\/2 \(run-2\/2\) has no verdict for ClickHouseBatchingSink\/network-degradation, .*every pair its selection gives it must be judged$/,
    );
  });

  it('refuses a slice that ran another --sink, --scenario, --server-dedup or --path, or another commit', () => {
    const [first, second] = slices(2);
    const other = (change: Partial<JobReport>) => [first!, { ...second!, run: { ...second!.run, ...change } }];
    const selected = (change: Partial<JobSelection>) => other({ selection: { ...SELECTION, ...change } });
    expect(() => mergeSliceRuns(selected({ classes: ['ClickHouseBatchingSink'] }), catalogue, 'm' as RunId)).toThrow(
      /^run-2\/2 has classes \["ClickHouseBatchingSink"\], run-1\/2 has \["ClickHouseBatchingSink","AtLeastOnceClickHouseSink","AtMostOnceClickHouseSink"\]: slices of one matrix share --sink, --scenario, --server-dedup, --path and the commit$/,
    );
    expect(() => mergeSliceRuns(selected({ scenarios: ['sink-crash'] }), catalogue, 'm' as RunId)).toThrow(
      /has scenarios/,
    );
    expect(() => mergeSliceRuns(selected({ serverDedup: 'on' }), catalogue, 'm' as RunId)).toThrow(
      /has serverDedup "on"/,
    );
    expect(() => mergeSliceRuns(selected({ path: '0:1' }), catalogue, 'm' as RunId)).toThrow(/has path "0:1"/);
    expect(() => mergeSliceRuns(other({ commit: 'beef' }), catalogue, 'm' as RunId)).toThrow(
      /has commit beef, run-1\/2 has c0ffee/,
    );
  });

  it('refuses a slice holding a pair its selection gives another slice', () => {
    const [first, second] = slices(2);
    const moved = first!.run.classes.AtMostOnceClickHouseSink!.scenarios.at(-1)!;
    const classes = { ...second!.run.classes };
    const atMostOnce = classes.AtMostOnceClickHouseSink!;
    classes.AtMostOnceClickHouseSink = { ...atMostOnce, scenarios: [...atMostOnce.scenarios, moved] };
    expect(() =>
      mergeSliceRuns([first!, { ...second!, run: { ...second!.run, classes } }], catalogue, 'm' as RunId),
    ).toThrow(`slice 2/2 (run-2/2) holds AtMostOnceClickHouseSink/${moved.name}, which its selection does not give it`);
  });
});
