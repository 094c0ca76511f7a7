import { describe, expect, it } from 'vitest';
import { mergeVerdicts } from './verdict.ts';

describe('mergeVerdicts', () => {
  it('ranks violation > infra-error > interrupted > inconclusive > pass', () => {
    expect(mergeVerdicts(['pass', 'inconclusive', 'violation', 'infra-error'])).toBe('violation');
    expect(mergeVerdicts(['pass', 'infra-error', 'inconclusive'])).toBe('infra-error');
    expect(mergeVerdicts(['pass', 'interrupted', 'inconclusive'])).toBe('interrupted');
    expect(mergeVerdicts(['violation', 'interrupted'])).toBe('violation');
    expect(mergeVerdicts(['pass', 'inconclusive'])).toBe('inconclusive');
    expect(mergeVerdicts(['pass', 'pass'])).toBe('pass');
  });
  it('never turns nothing into a pass', () => {
    expect(mergeVerdicts([])).toBe('inconclusive');
  });
});
