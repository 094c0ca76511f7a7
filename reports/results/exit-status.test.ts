import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mergeVerdicts, type Verdict } from '../../properties/base/index.ts';
import { exitStatusOf, exitStatusTable, resultExitStatus } from './exit-status.ts';

describe('the exit status of the chaos commands', () => {
  it.each<[Verdict[], number]>([
    [['pass', 'pass'], 0],
    [['pass', 'violation'], 1],
    [['violation', 'infra-error', 'interrupted', 'inconclusive'], 1],
    [['pass', 'inconclusive'], 3],
    [['pass', 'infra-error'], 3],
    [['interrupted'], 3],
  ])('%j exits %i: a violation anywhere is 1, anything else not passing is 3', (verdicts, status) => {
    expect(exitStatusOf(mergeVerdicts(verdicts))).toBe(status);
  });

  it("names a signal's status for a run a signal stopped, whatever its verdict", () => {
    expect(resultExitStatus({ verdict: 'violation', interrupted: true }).status).toBe('130 / 143');
    expect(resultExitStatus({ verdict: 'inconclusive' })).toMatchObject({ status: '3', name: 'not verified' });
  });

  it.each(['README.md', 'reports/README.md'])('%s documents exactly these statuses', (file) => {
    expect(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')).toContain(exitStatusTable());
  });
});
