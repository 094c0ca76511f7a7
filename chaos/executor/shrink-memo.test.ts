import { describe, expect, it } from 'vitest';
import { canonicalJson, ShrinkMemo } from './shrink-memo.ts';

describe('ShrinkMemo', () => {
  it('answers an equal case however its objects were built, and only under the mode it ran in', () => {
    const memo = new ShrinkMemo<unknown>();
    memo.remember({ steps: [{ kind: 'write', epochs: 1 }], seed: 3 }, true, false);
    expect(memo.recall({ seed: 3, steps: [{ epochs: 1, kind: 'write' }] }, true)).toBe(false);
    expect(memo.recall({ seed: 3, steps: [{ epochs: 1, kind: 'write' }] }, false)).toBeUndefined();
    expect(memo.recall({ seed: 3, steps: [{ epochs: 2, kind: 'write' }] }, true)).toBeUndefined();
  });

  it('keeps the order of arrays: two schedules with the same steps in another order are two cases', () => {
    expect(canonicalJson([{ b: 1, a: 2 }, 3])).toBe('[{"a":2,"b":1},3]');
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });
});
