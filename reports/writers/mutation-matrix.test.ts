import { describe, expect, it } from 'vitest';
import { matrixExitStatus, rowHolds, type Detection, type MatrixRow, type MutationMatrix } from '../results/index.ts';
import { matrixJson, matrixJunit, matrixMarkdown } from './mutation-matrix.ts';

const caught = (seed: number, runs: number): Detection => ({
  seed,
  verdict: 'violation',
  caughtInCategory: true,
  categories: ['lost'],
  runsToDetection: runs,
  secondsToDetection: 10 * runs,
  shrink: { steps: 3, seconds: 25, truncated: false, secondsToSmallest: 9, secondsToFirstSmaller: 4 },
  replayCommand: `npm run chaos -- --seed ${seed} --path 0:1`,
  infraErrors: 0,
});
const row = (over: Partial<MatrixRow>): MatrixRow => ({
  subject: 'unknown-outcome-as-ok',
  kind: 'source',
  sinkClass: 'ClickHouseBatchingSink',
  scenario: 'unknown-outcome',
  category: 'lost',
  why: 'because',
  detections: [caught(1, 1), caught(2, 3)],
  ...over,
});

describe('the detection matrix', () => {
  const escaped = row({
    subject: 'escaped',
    detections: [
      caught(1, 1),
      {
        seed: 2,
        verdict: 'pass',
        caughtInCategory: false,
        categories: [],
        replayCommand: 'npm run chaos -- --seed 2',
        infraErrors: 0,
      },
    ],
  });
  const control = row({
    subject: 'control',
    kind: 'control',
    category: null,
    why: null,
    detections: [
      { seed: 1, verdict: 'pass', caughtInCategory: false, categories: [], replayCommand: '', infraErrors: 0 },
    ],
  });
  const matrix: MutationMatrix = { runId: 'r1', seeds: [1, 2], durationMs: 60_000, rows: [row({}), escaped, control] };

  it('holds only when every seed caught the mutant in its category, and every control passed', () => {
    expect(matrix.rows.map(rowHolds)).toEqual([true, false, true]);
  });

  it('prints runs and seconds to detection and the shrinking as median / max, with a replay line', () => {
    const md = matrixMarkdown(matrix);
    expect(md).toContain('# Detection matrix — ❌ a mutant escaped or a control failed');
    expect(md).toContain(
      '| unknown-outcome-as-ok | ClickHouseBatchingSink | unknown-outcome | lost | 2/2 | 1 / 3 | 10 / 30 | 25 / 25 (a smaller case after 4 / 4) (smallest case after 9 / 9) | `npm run chaos -- --seed 1 --path 0:1` |',
    );
    expect(md).toContain('| control | ClickHouseBatchingSink | unknown-outcome | — | 1/1 pass |');
    expect(md).toContain('- **unknown-outcome-as-ok**: because');
  });

  it('has one JUnit case per row, the escaped mutant failing with each seed’s verdict', () => {
    const xml = matrixJunit(matrix);
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(xml).toContain('failures="1"');
    expect(xml).toContain('seed 2: pass — npm run chaos -- --seed 2');
    expect(JSON.parse(matrixJson(matrix)).holds).toBe(false);
  });

  it('exits 1 on a finding (a mutant let through, a control flagged), 3 when a run was only not verified, 0 when all held', () => {
    const unverified = (verdict: string): Detection => ({ ...caught(3, 1), verdict, caughtInCategory: false });
    const only = (...rows: MatrixRow[]): MutationMatrix => ({ ...matrix, rows });
    expect(matrixExitStatus(only(row({}), control))).toBe(0);
    expect(matrixExitStatus(matrix)).toBe(1);
    expect(matrixExitStatus(only(row({ detections: [unverified('violation')] })))).toBe(1);
    expect(matrixExitStatus(only(control, { ...control, detections: [unverified('violation')] }))).toBe(1);
    expect(matrixExitStatus(only(row({ detections: [unverified('inconclusive')] })))).toBe(3);
    expect(matrixExitStatus(only(row({}), { ...control, detections: [unverified('infra-error')] }))).toBe(3);
  });

  it('written while rows are still to run, says so, verifies nothing yet, and names what is left', () => {
    const partial: MutationMatrix = {
      ...matrix,
      rows: [row({}), control],
      pending: ['give-up-swallowed / S / server-errors'],
    };
    const md = matrixMarkdown(partial);
    expect(md).toContain('# Detection matrix — ⏳ partial: 2 of 3 rows run, each holding so far');
    expect(md).toContain('Not run yet: give-up-swallowed / S / server-errors.');
    expect(matrixExitStatus(partial)).toBe(3);
    expect(JSON.parse(matrixJson(partial))).toMatchObject({
      holds: false,
      pending: ['give-up-swallowed / S / server-errors'],
    });
    expect(matrixExitStatus({ ...partial, pending: [] })).toBe(0);
  });
});
