import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbEngineRunInput, ENGINE_SCENARIOS } from './engine-scenarios.ts';

const named = (name: string) => {
  const found = ENGINE_SCENARIOS.find((scenario) => scenario.name === name);
  if (found === undefined) throw new Error(`no scenario ${name}`);
  return found;
};
const offsetsDrawn = (name: string) =>
  new Set(fc.sample(arbEngineRunInput(named(name)), { numRuns: 60, seed: 7 }).map((input) => input.settings.offsets));

describe('where a scenario keeps the group offsets', () => {
  it("keeps them in the broker under a Keeper cut, so the cut can meet the view's INSERT", () => {
    expect([...offsetsDrawn('kafka-keeper-link')]).toEqual(['broker']);
  });

  it('draws both stores where the case does not need one', () => {
    expect(offsetsDrawn('kafka-broker-process')).toEqual(new Set(['broker', 'keeper']));
  });
});
