import { describe, expect, it } from 'vitest';
import { scenarioReportOf } from '../reports/results/test-support.ts';
import { scenarioProgressLine } from './progress-line.ts';

describe('scenarioProgressLine', () => {
  it('says only the verdict and its cost for a pass', () => {
    expect(scenarioProgressLine(scenarioReportOf({ durationMs: 2500 }), 1, 4)).toBe(
      '[1/4] ClickHouseBatchingSink / unknown-outcome: pass (1 runs, 2.5 s)',
    );
  });

  it('names a violation by its anomaly categories and counts, then its replay line', () => {
    const line = scenarioProgressLine(
      scenarioReportOf({
        verdict: 'violation',
        shrinkRuns: 3,
        anomalies: [
          { category: 'lost', count: 6, examples: ['1-0-1'] },
          { category: 'duplicated', count: 1, examples: ['1-0-2'] },
        ],
      }),
      2,
      4,
    );
    expect(line).toBe(
      '[2/4] ClickHouseBatchingSink / unknown-outcome: violation (1 runs + 3 shrink steps, 1.0 s) [lost×6, duplicated×1] — npm run chaos -- --sink ClickHouseBatchingSink --scenario unknown-outcome --seed 7',
    );
  });

  it("gives an infra-error's or an inconclusive run's first note, on one line and cut short", () => {
    const infra = scenarioProgressLine(
      scenarioReportOf({ verdict: 'infra-error', notes: ['run 0: replica s1r2\nstill read-only', 'second'] }),
      3,
      4,
    );
    expect(infra).toContain('infra-error (1 runs, 1.0 s) [run 0: replica s1r2 still read-only] — npm run chaos');
    const long = scenarioProgressLine(scenarioReportOf({ verdict: 'inconclusive', notes: ['x'.repeat(500)] }), 4, 4);
    expect(long).toContain(`[${'x'.repeat(299)}…]`);
  });

  it('gives an interrupted run its reason and no replay line', () => {
    const line = scenarioProgressLine(scenarioReportOf({ verdict: 'interrupted', notes: ['SIGTERM'] }), 1, 1);
    expect(line.endsWith('interrupted (1 runs, 1.0 s) [SIGTERM]')).toBe(true);
  });
});
