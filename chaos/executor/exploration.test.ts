import type fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Coverage, Evidence } from '../../properties/checkers/index.ts';
import { NO_EVIDENCE } from '../../properties/checkers/coverage-ledger.ts';
import type { Verdict } from '../../properties/base/index.ts';
import type { RunJudgement } from '../../properties/judge/index.ts';
import type { ExecutedRun } from './executed-run.ts';
import { Exploration, type ExplorationOptions, type NextRun, type RunTicket } from './exploration.ts';
import type { RunInput } from './run-input.ts';

// The explore → shrink → replay decisions, without a cluster: a fake clock, and runs whose check
// says only their verdict and whether they showed the one declared event (a replay).

const BUDGET = { minRuns: 1, maxRuns: 4, maxMs: 120_000, shrinkMs: 60_000, volume: 1 };
const declared: Coverage = { faults: [], replay: true };
const DETAILS = { failed: false } as fc.RunDetails<[RunInput]>;

function exploration(options: Partial<ExplorationOptions> = {}) {
  const clock = { now: 0 };
  const explored = new Exploration({
    budget: BUDGET,
    serverDedup: 'alternate',
    dedupFixed: false,
    replay: false,
    now: () => clock.now,
    ...options,
  });
  return { explored, clock };
}

/** The case fast-check offers as run `index`: every one different. */
const caseOf = (index: number): RunInput => ({ sourceSeed: index }) as unknown as RunInput;

/** fast-check offering the next case, a new one. */
const offer = (explored: Exploration, aborted = false): NextRun => explored.next(aborted, caseOf(explored.runs.length));

const ticketOf = (next: NextRun): RunTicket => {
  if (next.kind !== 'run') throw new Error(`expected a run, got ${next.kind}`);
  return next.ticket;
};

/** The run a ticket gives, judged `verdict` (showing `kinds`); `covered` when it showed the declared replay. */
function ran(ticket: RunTicket, verdict: Verdict, covered: boolean, kinds: readonly string[] = ['lost']): ExecutedRun {
  const evidence: Evidence = { ...NO_EVIDENCE, sightings: { ...NO_EVIDENCE.sightings, replay: covered ? 1 : 0 } };
  const anomalies = verdict === 'violation' ? kinds.map((category) => ({ category, count: 1, examples: [] })) : [];
  return {
    ...ticket,
    input: caseOf(ticket.index),
    check: { verdict, results: [{ anomalies }], coverage: declared, evidence } as unknown as RunJudgement,
    durationMs: 1_000,
    phases: { trafficMs: 0, healMs: 0, checkMs: 0 },
  };
}

describe('Exploration', () => {
  it('explores until the declared coverage happened, then skips and reports it covered', () => {
    const { explored } = exploration();
    expect(explored.record(ran(ticketOf(offer(explored)), 'pass', false))).toBe(true);
    expect(explored.record(ran(ticketOf(offer(explored)), 'pass', true))).toBe(true);
    expect(offer(explored)).toEqual({ kind: 'skip' });
    expect(explored.outcome(DETAILS)).toMatchObject({ stopped: 'covered', shrinkTruncated: false });
    expect(explored.ledger.runs).toBe(2);
  });

  it('stops at the budget (runs or time) with the coverage missing: budget spent', () => {
    const byRuns = exploration();
    for (let i = 0; i < BUDGET.maxRuns; i += 1)
      byRuns.explored.record(ran(ticketOf(offer(byRuns.explored)), 'pass', false));
    expect(offer(byRuns.explored)).toEqual({ kind: 'skip' });
    expect(byRuns.explored.outcome(DETAILS).stopped).toBe('budget-spent');

    const byTime = exploration();
    byTime.explored.record(ran(ticketOf(offer(byTime.explored)), 'pass', false));
    byTime.clock.now = BUDGET.maxMs;
    expect(offer(byTime.explored)).toEqual({ kind: 'skip' });
    expect(byTime.explored.outcome(DETAILS).stopped).toBe('budget-spent');
  });

  it('takes no shrink step after one failed in the harness: the counterexample so far, cut short', () => {
    const { explored } = exploration();
    explored.record(ran(ticketOf(offer(explored)), 'violation', false));
    const { check: _, ...unchecked } = ran(ticketOf(offer(explored)), 'pass', false);
    explored.record({ ...unchecked, infraError: 'replica r1 still has read-only tables 90000 ms after healing' });
    expect(offer(explored)).toEqual({ kind: 'skip' });
    expect(explored.outcome(DETAILS)).toMatchObject({ counterexample: 0, shrinkTruncated: true });
  });

  it('alternates server dedup over exploring runs, off first; a token class keeps it', () => {
    const { explored } = exploration();
    const settings = [0, 1, 2].map(() => {
      const ticket = ticketOf(offer(explored));
      explored.record(ran(ticket, 'pass', false));
      return ticket.serverDedupOff;
    });
    expect(settings).toEqual([true, false, true]);
    const fixed = exploration({ dedupFixed: true });
    expect(ticketOf(offer(fixed.explored)).serverDedupOff).toBe(false);
  });

  it('the first violation starts shrinking under its server-dedup setting; shrink steps stay out of the ledger', () => {
    const { explored } = exploration();
    explored.record(ran(ticketOf(offer(explored)), 'pass', false));
    const failing = ticketOf(offer(explored));
    expect(failing).toEqual({ index: 1, phase: 'explore', serverDedupOff: false });
    expect(explored.record(ran(failing, 'violation', false))).toBe(false);
    const steps = [0, 1, 2].map(() => {
      const step = ticketOf(offer(explored));
      explored.record(ran(step, 'violation', true));
      return step;
    });
    expect(steps).toEqual([
      { index: 2, phase: 'shrink', serverDedupOff: false },
      { index: 3, phase: 'shrink', serverDedupOff: false },
      { index: 4, phase: 'shrink', serverDedupOff: false },
    ]);
    expect(explored.ledger.runs).toBe(2);
    expect(explored.outcome(DETAILS).runs.map((run) => run.phase)).toEqual([
      'explore',
      'explore',
      'shrink',
      'shrink',
      'shrink',
    ]);
  });

  it('shrinking keeps the failure: a step that loses one of its anomaly kinds is not taken as a counterexample', () => {
    const { explored } = exploration();
    expect(
      explored.record(ran(ticketOf(offer(explored)), 'violation', false, ['duplicated', 'token-not-as-owed'])),
    ).toBe(false);
    expect(explored.record(ran(ticketOf(offer(explored)), 'violation', false, ['token-not-as-owed']))).toBe(true);
    expect(
      explored.record(ran(ticketOf(offer(explored)), 'violation', false, ['duplicated', 'token-not-as-owed', 'lost'])),
    ).toBe(false);
    expect(explored.record(ran(ticketOf(offer(explored)), 'pass', false))).toBe(true);
    expect(
      explored.record(ran(ticketOf(offer(explored)), 'violation', false, ['duplicated', 'token-not-as-owed'])),
    ).toBe(false);
    // The last step that kept the failure is reported; the first one is when a smaller case was there at all.
    expect(explored.outcome(DETAILS)).toMatchObject({ counterexample: 4, firstShrunk: 2 });
  });

  it('a shrink step starts only when it is expected to end by the deadline; the cases left are skipped, truncated', () => {
    const { explored, clock } = exploration();
    clock.now = 10_000;
    explored.record(ran(ticketOf(offer(explored)), 'violation', false));
    const deadline = 10_000 + BUDGET.shrinkMs;
    // Before the first step, the failing run's 1 s is what a step is expected to take.
    clock.now = deadline - 1_001;
    const step = ticketOf(offer(explored));
    expect(step.phase).toBe('shrink');
    explored.record({ ...ran(step, 'pass', false), durationMs: 5_000 });
    expect(explored.outcome(DETAILS).shrinkTruncated).toBe(false);
    // Then the longest step so far: 5 s no longer fits in the 4 s left.
    clock.now = deadline - 4_000;
    expect(offer(explored)).toEqual({ kind: 'skip' });
    expect(explored.outcome(DETAILS).shrinkTruncated).toBe(true);
  });

  it('a replay that held skips every case after it; one that failed again shrinks from there', () => {
    const held = exploration({ replay: true });
    held.explored.record(ran(ticketOf(offer(held.explored)), 'pass', false));
    expect(offer(held.explored)).toEqual({ kind: 'skip' });
    expect(offer(held.explored, true)).toEqual({ kind: 'skip' });

    const failed = exploration({ replay: true });
    failed.explored.record(ran(ticketOf(offer(failed.explored)), 'violation', false));
    expect(ticketOf(offer(failed.explored)).phase).toBe('shrink');
  });

  it('an abort ends the check, while exploring and while shrinking', () => {
    const { explored } = exploration();
    expect(offer(explored, true)).toEqual({ kind: 'end' });
    explored.record(ran(ticketOf(offer(explored)), 'violation', false));
    expect(offer(explored, true)).toEqual({ kind: 'end' });
    expect(explored.runs).toHaveLength(1);
  });

  it('a run the harness could not check counts as held, adds nothing to the ledger and ends the exploring', () => {
    const { explored } = exploration();
    const ticket = ticketOf(offer(explored));
    const { check: _, ...unchecked } = ran(ticket, 'pass', false);
    expect(explored.record({ ...unchecked, infraError: 'the cluster failed' })).toBe(true);
    expect(explored.ledger.runs).toBe(0);
    expect(offer(explored)).toEqual({ kind: 'skip' });
  });
});

describe('Exploration, a shrink step identical to a case already run', () => {
  it('is answered as that case was, without a run: the counterexample stays the run that showed it', () => {
    const { explored } = exploration();
    const failing = ticketOf(explored.next(false, caseOf(7)));
    explored.record({ ...ran(failing, 'violation', false), input: caseOf(7) });
    expect(explored.next(false, caseOf(7))).toEqual({ kind: 'recalled', holds: false });
    const step = ticketOf(explored.next(false, caseOf(8)));
    explored.record({ ...ran(step, 'pass', false), input: caseOf(8) });
    expect(explored.next(false, caseOf(8))).toEqual({ kind: 'recalled', holds: true });
    expect(explored.runs).toHaveLength(2);
    expect(explored.outcome(DETAILS)).toMatchObject({ counterexample: 0 });
  });

  it('is recalled only under the failing run’s server-dedup setting, and never while exploring', () => {
    const { explored } = exploration();
    // Explored with dedup off, it held; the violation comes with dedup on.
    explored.record({ ...ran(ticketOf(explored.next(false, caseOf(1))), 'pass', false), input: caseOf(1) });
    expect(ticketOf(explored.next(false, caseOf(1))).phase).toBe('explore');
    explored.record({ ...ran(ticketOf(explored.next(false, caseOf(2))), 'violation', false), input: caseOf(2) });
    expect(explored.runs.map((run) => run.serverDedupOff)).toEqual([true, false]);
    expect(ticketOf(explored.next(false, caseOf(1))).phase).toBe('shrink');
  });
});
