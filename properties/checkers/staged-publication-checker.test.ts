import { describe, expect, it } from 'vitest';
import { checkStagedRun, type LoadCount, type StagedObservation } from './staged-publication-checker.ts';

/** Load `load` seen `copies` times whole in both tables (a: 10 rows, b: 20). */
const both = (load: number, copies: number): LoadCount[] => [
  { table: 'a', load, rows: 10 * copies, distinct: 10 },
  { table: 'b', load, rows: 20 * copies, distinct: 20 },
];

/** Two loads into two tables (a: 10 rows, b: 20), both published, read before, during and after. */
const golden: StagedObservation = {
  tables: ['a', 'b'],
  loads: [
    { load: 1, rows: { a: 10, b: 20 }, outcome: 'published', published: ['a', 'b'] },
    { load: 2, rows: { a: 10, b: 20 }, outcome: 'published', published: ['a', 'b'] },
  ],
  final: [
    { replica: 'r1', counts: [...both(1, 1), ...both(2, 1)], wrongRows: [] },
    { replica: 'r2', counts: [...both(1, 1), ...both(2, 1)], wrongRows: [] },
  ],
  reads: [
    { replica: 'r1', startedAt: 0, endedAt: 5, counts: [] },
    { replica: 'r2', startedAt: 10, endedAt: 14, counts: both(1, 1) },
    {
      replica: 'r1',
      startedAt: 20,
      endedAt: 26,
      counts: [...both(1, 1), { table: 'a', load: 2, rows: 10, distinct: 10 }],
    },
    { replica: 'r1', startedAt: 30, endedAt: 33, counts: [...both(1, 1), ...both(2, 1)] },
  ],
};

const categories = (observation: StagedObservation, owed: 'exactly-once' | 'at-least-once' = 'exactly-once') =>
  checkStagedRun(observation, owed).anomalies.map((found) => found.category);

describe('checkStagedRun', () => {
  it('passes a golden history and measures the switch window of a load seen in one table only', () => {
    const check = checkStagedRun(golden, 'exactly-once');
    expect(check.anomalies).toEqual([]);
    expect(check.windows).toEqual([
      { load: 1, splitReads: 0, spanMs: 0, fromMs: 0, toMs: 0 },
      { load: 2, splitReads: 1, spanMs: 6, fromMs: 20, toMs: 26 },
    ]);
    expect(check.counts).toMatchObject({ attempted: 60, acknowledged: 60, lost: 0, duplicated: 0 });
  });

  it('a read that saw part of a load is a fractured read', () => {
    const reads = [
      ...golden.reads,
      { replica: 'r2', startedAt: 40, endedAt: 41, counts: [{ table: 'b', load: 2, rows: 7, distinct: 7 }] },
    ];
    const check = checkStagedRun({ ...golden, reads }, 'exactly-once');
    expect(check.anomalies.map((found) => found.category)).toEqual(['fractured-read']);
    expect(check.anomalies[0]?.examples).toEqual(['r2 at 40 ms: 7 rows (7 distinct) of 20 of load 2 in b']);
  });

  it('a read of a whole number of rows that lacks some ids saw parts of two copies: fractured', () => {
    const reads = [
      { replica: 'r1', startedAt: 1, endedAt: 2, counts: [{ table: 'a', load: 1, rows: 10, distinct: 6 }] },
    ];
    expect(categories({ ...golden, reads })).toEqual(['fractured-read']);
  });

  it('a read that saw more than the final state holds, or a load that never was, is a phantom read', () => {
    expect(
      categories({
        ...golden,
        reads: [{ replica: 'r1', startedAt: 1, endedAt: 2, counts: [{ table: 'a', load: 1, rows: 20, distinct: 10 }] }],
      }),
    ).toEqual(['phantom-read']);
    expect(
      categories({
        ...golden,
        reads: [{ replica: 'r1', startedAt: 1, endedAt: 2, counts: [{ table: 'a', load: 9, rows: 1, distinct: 1 }] }],
      }),
    ).toEqual(['phantom-read']);
  });

  it('a load published twice is duplicated where exactly-once is owed, and counted where at-least-once is', () => {
    const twice: StagedObservation = {
      ...golden,
      final: golden.final.map((replica) => ({ ...replica, counts: [...both(1, 2), ...both(2, 1)] })),
      reads: [],
    };
    expect(categories(twice)).toEqual(['duplicated']);
    const atLeastOnce = checkStagedRun(twice, 'at-least-once');
    expect(atLeastOnce.anomalies).toEqual([]);
    expect(atLeastOnce.counts.duplicated).toBe(30);
  });

  it('an acknowledged publication absent is lost; a load given up while staging that reached production is unexpected', () => {
    const final = [{ replica: 'r1', counts: both(1, 1), wrongRows: [] }];
    expect(categories({ ...golden, final, reads: [] })).toEqual(['lost']);
    const gaveUp: StagedObservation = {
      ...golden,
      loads: [golden.loads[0]!, { load: 2, rows: { a: 10, b: 20 }, outcome: 'gave-up-stage', published: [] }],
      reads: [],
    };
    expect(categories(gaveUp)).toEqual(['unexpected']);
    const gaveUpUnpublished = { ...gaveUp, final: [{ replica: 'r1', counts: both(1, 1), wrongRows: [] }] };
    expect(checkStagedRun(gaveUpUnpublished, 'exactly-once')).toMatchObject({ anomalies: [], counts: { gaveUp: 30 } });
  });

  it('a publication given up with its outcome unknown may be there or not; there, it counts as recovered', () => {
    const unknown: StagedObservation = {
      ...golden,
      loads: [golden.loads[0]!, { load: 2, rows: { a: 10, b: 20 }, outcome: 'gave-up-publish', published: ['a'] }],
    };
    const check = checkStagedRun(unknown, 'exactly-once');
    expect(check.anomalies).toEqual([]);
    expect(check.counts.recovered).toBe(20);
  });

  it('a row that is not its source row is unexpected; replicas that disagree diverge', () => {
    const wrong = {
      ...golden,
      final: [{ ...golden.final[0]!, wrongRows: ['a, load 1, id 3: payload differs'] }],
      reads: [],
    };
    expect(categories(wrong)).toEqual(['unexpected']);
    const diverged = {
      ...golden,
      final: [golden.final[0]!, { replica: 'r2', counts: both(1, 1), wrongRows: [] }],
      reads: [],
    };
    expect(categories(diverged)).toEqual(['diverged:r2']);
  });

  it('a publication the engine must refuse is reported refused, and only that one', () => {
    const refused: StagedObservation = {
      ...golden,
      loads: [
        { load: 1, rows: { a: 10, b: 20 }, outcome: 'refused', published: [] },
        { load: 2, rows: { a: 10, b: 20 }, outcome: 'refused', published: [] },
      ],
      final: [{ replica: 'r1', counts: [], wrongRows: [] }],
      reads: [],
      mustRefuse: [1, 2],
    };
    expect(categories(refused)).toEqual([]);
    // Nothing was switched: no window to measure.
    expect(checkStagedRun(refused, 'exactly-once').windows).toEqual([]);
    const publishedAnyway: StagedObservation = {
      ...golden,
      loads: [golden.loads[0]!, refused.loads[1]!],
      final: [{ replica: 'r1', counts: both(1, 1), wrongRows: [] }],
      reads: [],
      mustRefuse: [1, 2],
    };
    expect(categories(publishedAnyway)).toEqual(['refusal-missing']);
    expect(categories({ ...refused, mustRefuse: [] })).toEqual(['refusal-unexpected']);
    const refusedYetThere = { ...refused, final: [{ replica: 'r1', counts: both(1, 1), wrongRows: [] }] };
    expect(categories(refusedYetThere)).toEqual(['unexpected']);
  });

  it('reads of a replica under repair are counted, never judged', () => {
    const reads = [
      {
        replica: 'r2',
        startedAt: 40,
        endedAt: 41,
        counts: [{ table: 'b', load: 2, rows: 7, distinct: 7 }],
        repairing: true,
      },
      { replica: 'r2', startedAt: 50, endedAt: 51, counts: both(1, 1), repairing: true },
    ];
    const check = checkStagedRun({ ...golden, reads }, 'exactly-once');
    expect(check.anomalies).toEqual([]);
    expect(check.underRepair).toEqual({ reads: 2, fractured: 1 });
    const notRepairing = reads.map(({ repairing: _, ...read }) => read);
    expect(categories({ ...golden, reads: notRepairing })).toEqual(['fractured-read']);
  });

  it("a replica under repair that shows a load in one table does not widen the switch's window", () => {
    const catchingUp = {
      replica: 'r3',
      startedAt: 60,
      endedAt: 90,
      counts: [...both(1, 1), { table: 'a', load: 2, rows: 10, distinct: 10 }],
      repairing: true,
    };
    const check = checkStagedRun({ ...golden, reads: [...golden.reads, catchingUp] }, 'exactly-once');
    expect(check.windows[1]).toEqual({ load: 2, splitReads: 1, spanMs: 6, fromMs: 20, toMs: 26 });
  });
});
