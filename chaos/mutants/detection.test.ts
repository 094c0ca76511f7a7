import { describe, expect, it } from 'vitest';
import { MUTANTS, type MutantName } from './catalogue.ts';
import { findScenarios } from '../scenarios/index.ts';
import type { ScenarioOutcome } from '../executor/index.ts';
import { ALSO_CAUGHT_IN, caughtInCategory, replayLine, shrinkFigures } from './detection.ts';
import { MUTANT_TARGETS } from './targets.ts';

describe('a mutant is caught', () => {
  it('in its own category', () => {
    expect(caughtInCategory('unknown-outcome-as-ok', 'violation', ['lost'])).toBe(true);
    expect(caughtInCategory('sharding-key-ignored', 'violation', ['misplaced'])).toBe(true);
  });

  it('not when a category its breakage does not explain comes with it: a checker over-reporting is a finding', () => {
    expect(caughtInCategory('unknown-outcome-as-ok', 'violation', ['lost', 'duplicated'])).toBe(false);
    expect(caughtInCategory('sharding-key-ignored', 'violation', ['misplaced', 'diverged:s1r2'])).toBe(false);
  });

  it('not without its own category, nor without a violation', () => {
    expect(caughtInCategory('unknown-outcome-as-ok', 'violation', ['duplicated'])).toBe(false);
    expect(caughtInCategory('unknown-outcome-as-ok', 'inconclusive', ['lost'])).toBe(false);
  });

  it('with the categories its allow-list explains, each with its reason', () => {
    expect(caughtInCategory('token-changes-on-replay', 'violation', ['duplicated', 'token-not-as-owed'])).toBe(true);
    expect(caughtInCategory('token-changes-on-replay', 'violation', ['token-not-as-owed'])).toBe(false);
    for (const [mutant, allowed] of Object.entries(ALSO_CAUGHT_IN)) {
      expect(allowed.why.length, mutant).toBeGreaterThan(20);
      expect(allowed.kinds, mutant).not.toContain(MUTANTS[mutant as MutantName].category);
    }
  });
});

describe("a matrix row's replay line", () => {
  const chaosLine = (scenario: string) =>
    `npm run chaos -- --sink AtLeastOnceClickHouseSink --scenario ${scenario} --seed 17 --path 0:1 --server-dedup off`;
  const target = MUTANT_TARGETS['row-values-by-position'].scenario;

  it('runs the mutants CLI on the mutant alone, with the chaos line’s seed, path and dedup setting', () => {
    expect(replayLine(chaosLine(target.name), target, { mutant: 'row-values-by-position' })).toBe(
      'npm run mutants -- --mutant row-values-by-position --seeds 1 --no-control --seed 17 --path 0:1 --server-dedup off',
    );
  });

  it("runs a control at a target's own scenario through the mutants CLI, and at a catalogue scenario through the chaos CLI", () => {
    expect(replayLine(chaosLine(target.name), target, { controlOf: 'row-values-by-position' })).toBe(
      'npm run mutants -- --mutant row-values-by-position --seeds 1 --control-only --seed 17 --path 0:1 --server-dedup off',
    );
    const [catalogued] = findScenarios(['unknown-outcome']);
    if (catalogued === undefined) throw new Error('no unknown-outcome');
    expect(replayLine(chaosLine('unknown-outcome'), catalogued, { controlOf: 'unknown-outcome-as-ok' })).toBe(
      chaosLine('unknown-outcome'),
    );
  });
});

describe("a seed's shrink figures", () => {
  const runs = [4_000, 10_000, 5_000, 6_000, 7_000].map(
    (durationMs) => ({ durationMs }) as ScenarioOutcome['runs'][number],
  );

  it('count the steps after the first violation, and the seconds until the steps that found a smaller and the reported case', () => {
    expect(shrinkFigures({ runs, counterexample: 3, firstShrunk: 2, shrinkTruncated: true }, 1)).toEqual({
      steps: 3,
      seconds: 18,
      truncated: true,
      secondsToSmallest: 11,
      secondsToFirstSmaller: 5,
    });
  });

  it('take no time to the smallest case when no step failed the same way', () => {
    const none = shrinkFigures({ runs, counterexample: 1, shrinkTruncated: false }, 1);
    expect(none.secondsToSmallest).toBe(0);
    expect(none.secondsToFirstSmaller).toBeUndefined();
  });
});
