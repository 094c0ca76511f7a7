import { describe, expect, it } from 'vitest';
import { lanesOption } from './lanes-option.ts';

describe('lanesOption', () => {
  it('is one lane per core when not given, between 1 and 4', () => {
    expect([1, 2, 8].map((cores) => lanesOption(undefined, cores))).toEqual([1, 2, 4]);
  });

  it('takes a whole number from 1 to 4 and refuses anything else in one line', () => {
    expect(lanesOption('3', 2)).toBe(3);
    for (const bad of ['0', '5', 'two', '1.5'])
      expect(() => lanesOption(bad, 2)).toThrow(`--lanes takes a whole number from 1 to 4, got '${bad}'`);
  });
});
