import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { seedOf } from '../../harness/base/index.ts';
import { explorePath, type PathRun, pathScenarioVerdict } from './path-loop.ts';

type Run = PathRun<number> & { readonly bad: boolean; readonly fired: boolean };

const loop = (runOne: (base: PathRun<number>) => Run, arbitrary = fc.integer({ min: 0, max: 1000 })) =>
  explorePath<number, Run>({
    seed: seedOf(42, 'test'),
    seedKey: 'Class/scenario',
    profile: 'ci',
    arbitrary,
    serverDedup: 'alternate',
    offFirst: true,
    violated: (run) => run.bad,
    fired: (run) => run.fired,
    run: async (base) => runOne(base),
  });

describe('explorePath', () => {
  it('stops exploring once a fault fired, alternating dedup from the first run', async () => {
    const outcome = await loop((base) => ({ ...base, bad: false, fired: base.index === 1 }));
    expect(outcome.stopped).toBe('covered');
    expect(outcome.runs.map((run) => [run.phase, run.dedupOff])).toEqual([
      ['explore', true],
      ['explore', false],
    ]);
  });

  it('shrinks a violation with the dedup mode it was found under, and hands back the path to it', async () => {
    const outcome = await loop((base) => ({ ...base, bad: base.input >= 5, fired: false }));
    const violating = outcome.runs.filter((run) => run.bad);
    expect(violating.length).toBeGreaterThan(0);
    expect(outcome.runs.some((run) => run.phase === 'shrink')).toBe(true);
    expect(new Set(outcome.runs.filter((run) => run.phase === 'shrink').map((run) => run.dedupOff)).size).toBe(1);
    expect(Math.min(...violating.map((run) => run.input))).toBe(5);
    expect(outcome.counterexamplePath).toMatch(/^\d+(:\d+)*$/);
  });

  it('runs a case once: a shrink step identical to a case already run is answered as it was', async () => {
    // Every draw past 9 is the case 9: fast-check shrinks the draw, and most steps offer 9 again.
    const outcome = await loop(
      (base) => ({ ...base, bad: base.input >= 5, fired: false }),
      fc.noBias(fc.integer({ min: 0, max: 1_000_000 })).map((n) => Math.min(n, 9)),
    );
    const judged = outcome.runs.filter((run) => run.phase === 'shrink' || run.bad).map((run) => run.input);
    expect(judged[0]).toBe(9);
    expect(new Set(judged).size).toBe(judged.length);
    expect(Math.min(...outcome.runs.filter((run) => run.bad).map((run) => run.input))).toBe(5);
  });

  afterEach(() => vi.useRealTimers());

  it('starts a shrink step only when it is expected to end within the shrink budget', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const took = (ms: number) => vi.setSystemTime(Date.now() + ms);
    // The failing run takes 50 s, each shrink step 25 s, against the ci profile's 60 s: steps
    // start at 0 s (50 s expected) and 25 s (25 s expected); one at 50 s would end at 75 s.
    // The inputs leave fast-check many steps to try.
    const outcome = await loop(
      (base) => {
        took(base.phase === 'explore' ? 50_000 : 25_000);
        return { ...base, bad: base.input > 200_000, fired: false };
      },
      fc.noBias(fc.integer({ min: 100_000, max: 1_000_000 })),
    );
    expect(outcome.runs.filter((run) => run.phase === 'shrink')).toHaveLength(2);
  });
});

describe('pathScenarioVerdict', () => {
  const explore = { phase: 'explore' as const, violated: false, fired: true, infraError: false };
  it('passes only on a fault that counted, and calls any violation one', () => {
    expect(pathScenarioVerdict([explore], false)).toBe('pass');
    expect(pathScenarioVerdict([{ ...explore, fired: false }], false)).toBe('inconclusive');
    expect(pathScenarioVerdict([explore, { ...explore, phase: 'shrink', violated: true }], false)).toBe('violation');
    expect(pathScenarioVerdict([explore, { ...explore, infraError: true, fired: false }], false)).toBe('infra-error');
    expect(pathScenarioVerdict([explore], true)).toBe('interrupted');
  });
});
