import { describe, expect, it } from 'vitest';
import { judgedWarning, owedGuarantee } from './owed.ts';

describe('what a class owes on the run table', () => {
  it('degrades exactly-once only where the table cannot drop a replay, and judges the warning that says so', () => {
    expect(owedGuarantee('exactly-once', 'single-host-merge-tree', true)).toBe('at-least-once');
    expect(owedGuarantee('exactly-once', 'short-dedup-window', true)).toBe('at-least-once');
    expect(owedGuarantee('exactly-once', 'short-dedup-window', false)).toBe('exactly-once');
    // A token-less class's dedup-off run on a replicated table is the harness hiding nothing, not a degradation.
    expect(owedGuarantee('exactly-once', 'replicated', true)).toBe('exactly-once');
    expect(owedGuarantee('at-most-once', 'single-host-merge-tree', true)).toBe('at-most-once');
    expect(judgedWarning('single-host-merge-tree', false)).toEqual({ kind: 'no-block-dedup', expected: false });
    expect(judgedWarning('short-dedup-window', true)).toEqual({ kind: 'dedup-window-short', expected: true });
    expect(judgedWarning('replicated', true)).toBeUndefined();
  });
});
