import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbEngineRunInput, ENGINE_MESSAGES, ENGINE_SCENARIOS, MAX_BLOCKS_PER_RUN } from './engine-scenarios.ts';

const named = (name: string) => {
  const found = ENGINE_SCENARIOS.find((scenario) => scenario.name === name);
  if (found === undefined) throw new Error(`no scenario ${name}`);
  return found;
};
const offsetsDrawn = (name: string) =>
  new Set(
    fc.sample(arbEngineRunInput(named(name), 'ci'), { numRuns: 60, seed: 7 }).map((input) => input.settings.offsets),
  );

describe('where a scenario keeps the group offsets', () => {
  it("keeps them in the broker under a Keeper cut, so the cut can meet the view's INSERT", () => {
    expect([...offsetsDrawn('kafka-keeper-link')]).toEqual(['broker']);
  });

  it('draws both stores where the case does not need one', () => {
    expect(offsetsDrawn('kafka-broker-process')).toEqual(new Set(['broker', 'keeper']));
  });
});

describe("a kill aimed between a block's write and its commit", () => {
  it('always runs where that window exists and can be read back: offsets in the broker, the commit after the block', () => {
    const aimed = fc
      .sample(arbEngineRunInput(named('kafka-replica-kill'), 'ci'), { numRuns: 80, seed: 11 })
      .filter((input) => input.fault.kind === 'replica-kill' && input.fault.between !== undefined);
    expect(aimed.length).toBeGreaterThan(0);
    for (const input of aimed) {
      expect(input.settings.offsets).toBe('broker');
      expect(input.settings.commitEveryBatch).toBe(false);
    }
  });
});

describe('the traffic a run writes', () => {
  it('is at most a bounded number of blocks of the drawn block size, so a small block still drains inside the wait', () => {
    const inputs = ENGINE_SCENARIOS.flatMap((scenario) =>
      fc.sample(arbEngineRunInput(scenario, 'ci'), { numRuns: 100, seed: 3 }),
    );
    for (const input of inputs)
      expect(input.messages).toBeLessThanOrEqual(MAX_BLOCKS_PER_RUN * input.settings.maxBlockSize);
    expect(inputs.some((input) => input.messages === MAX_BLOCKS_PER_RUN * input.settings.maxBlockSize)).toBe(true);
    for (const input of inputs) expect(Math.max(...input.broken)).toBeLessThanOrEqual(input.messages);
  });

  it('is larger in `full` than in `ci` (a higher floor, three times the ceiling), so a night writes 10^5 rows', () => {
    const drawn = (profile: 'ci' | 'full') =>
      ENGINE_SCENARIOS.flatMap((scenario) =>
        fc.sample(arbEngineRunInput(scenario, profile), { numRuns: 100, seed: 3 }),
      );
    const mean = (inputs: readonly { messages: number }[]) =>
      inputs.reduce((sum, input) => sum + input.messages, 0) / inputs.length;
    const full = drawn('full');
    for (const input of full)
      expect(input.messages).toBeGreaterThanOrEqual(
        Math.min(ENGINE_MESSAGES.full.min, MAX_BLOCKS_PER_RUN * input.settings.maxBlockSize),
      );
    expect(mean(full)).toBeGreaterThan(2 * mean(drawn('ci')));
  });
});
