/**
 * The detection matrix of `npm run mutants`: every shipped mutant against the scenario that
 * targets it, over several seeds, and the unmutated sink under the same scenarios as a control.
 * The writers here turn it into the same four artifacts a chaos run has.
 */
import type { AnomalyCategory, AnomalyKind } from '../properties/checkers/anomaly-category.ts';
import type { SinkClassName } from '../sinks/domain/sink-class-name.ts';
import { xmlText } from './writers/junit-xml.ts';

export interface Detection {
  readonly seed: number;
  readonly verdict: string;
  /** A violation in the mutant's category, and in no category its breakage does not explain (`chaos/mutants/detection.ts`). */
  readonly caughtInCategory: boolean;
  readonly categories: readonly AnomalyCategory[];
  /** Exploring runs up to and including the first violating one (absent when never caught). */
  readonly runsToDetection?: number;
  /** Seconds of runs up to the end of the first violating one. */
  readonly secondsToDetection?: number;
  /** Shrinking after the first violation: steps, seconds, and whether its budget cut it short. */
  readonly shrink?: { readonly steps: number; readonly seconds: number; readonly truncated: boolean };
  readonly replayCommand: string;
  readonly infraErrors: number;
}

export interface MatrixRow {
  /** A mutant's name, or `control` for the unmutated sink. */
  readonly subject: string;
  readonly kind: 'wrapper' | 'source' | 'control';
  readonly sinkClass: SinkClassName;
  readonly scenario: string;
  /** The anomaly category the mutant must be caught in (null for the control). */
  readonly category: AnomalyKind | null;
  readonly why: string | null;
  readonly detections: readonly Detection[];
}

export interface MutationMatrix {
  readonly runId: string;
  readonly seeds: readonly number[];
  readonly durationMs: number;
  readonly rows: readonly MatrixRow[];
}

/**
 * How one seed of a row came out: as the row requires (a mutant caught, a control passing), a
 * finding (a mutant the checkers let through or flagged for something else, a control they
 * flagged), or not verified (the run was inconclusive, a harness failure or interrupted).
 */
export function detectionOutcome(row: MatrixRow, d: Detection): 'held' | 'finding' | 'not verified' {
  if (row.kind === 'control')
    return d.verdict === 'pass' ? 'held' : d.verdict === 'violation' ? 'finding' : 'not verified';
  if (d.caughtInCategory) return 'held';
  return d.verdict === 'violation' || d.verdict === 'pass' ? 'finding' : 'not verified';
}

/** A row is good when every seed held: each caught in its category (a mutant), or passing (the control). */
export const rowHolds = (row: MatrixRow): boolean =>
  row.detections.length > 0 && row.detections.every((d) => detectionOutcome(row, d) === 'held');

/** `npm run mutants`' exit status, as the chaos job's: 0 every row held, 1 a finding, 3 otherwise not verified. */
export function matrixExitStatus(matrix: MutationMatrix): 0 | 1 | 3 {
  const outcomes = matrix.rows.flatMap((row) => row.detections.map((d) => detectionOutcome(row, d)));
  if (outcomes.includes('finding')) return 1;
  return matrix.rows.every(rowHolds) ? 0 : 3;
}

const median = (values: readonly number[]): number | undefined =>
  values.length === 0 ? undefined : [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const range = (values: readonly number[], digits = 0) =>
  values.length === 0 ? '—' : `${median(values)?.toFixed(digits)} / ${Math.max(...values).toFixed(digits)}`;

/** One line per row, the figures a reader asks for first. */
function rowFigures(row: MatrixRow): { caught: string; runs: string; seconds: string; shrink: string; replay: string } {
  const good = row.detections.filter((d) =>
    row.kind === 'control' ? d.verdict === 'pass' : d.caughtInCategory,
  ).length;
  const pick = (f: (d: Detection) => number | undefined) =>
    row.detections.map(f).filter((v): v is number => v !== undefined);
  const shrink = pick((d) => d.shrink?.seconds);
  const truncated = row.detections.filter((d) => d.shrink?.truncated).length;
  return {
    caught: row.kind === 'control' ? `${good}/${row.detections.length} pass` : `${good}/${row.detections.length}`,
    runs: range(pick((d) => d.runsToDetection)),
    seconds: range(pick((d) => d.secondsToDetection)),
    shrink: shrink.length === 0 ? '—' : `${range(shrink)}${truncated > 0 ? ` (${truncated} cut short)` : ''}`,
    replay: row.detections.find((d) => d.verdict === 'violation')?.replayCommand ?? '',
  };
}

export function matrixJson(matrix: MutationMatrix): string {
  return `${JSON.stringify({ run_id: matrix.runId, seeds: matrix.seeds, duration_ms: matrix.durationMs, holds: matrix.rows.every(rowHolds), rows: matrix.rows }, null, 2)}\n`;
}

export function matrixMarkdown(matrix: MutationMatrix): string {
  const lines = [
    `# Detection matrix — ${matrix.rows.every(rowHolds) ? '✅ every mutant caught, every control clean' : '❌ a mutant escaped or a control failed'}`,
    '',
    `run \`${matrix.runId}\` · seeds ${matrix.seeds.join(', ')} · ${(matrix.durationMs / 1000).toFixed(0)} s`,
    '',
    '| mutant | class | scenario | caught in | caught | runs to detection (median / max) | seconds to detection | seconds shrinking | a replay line |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of matrix.rows) {
    const f = rowFigures(row);
    lines.push(
      `| ${row.subject} | ${row.sinkClass} | ${row.scenario} | ${row.category ?? '—'} | ${f.caught} | ${f.runs} | ${f.seconds} | ${f.shrink} | ${f.replay === '' ? '—' : `\`${f.replay}\``} |`,
    );
  }
  const whys = matrix.rows.filter((row) => row.why !== null);
  if (whys.length > 0)
    lines.push(
      '',
      '### Why each is a bug a person could ship',
      '',
      ...whys.map((row) => `- **${row.subject}**: ${row.why}`),
    );
  return `${lines.join('\n')}\n`;
}

export function matrixHtml(matrix: MutationMatrix): string {
  const rows = matrix.rows.map((row) => {
    const f = rowFigures(row);
    const colour = rowHolds(row) ? '#2e7d32' : '#c62828';
    const cells = [
      row.subject,
      row.sinkClass,
      row.scenario,
      row.category ?? '—',
      f.caught,
      f.runs,
      f.seconds,
      f.shrink,
    ].map((cell) => `<td>${xmlText(cell)}</td>`);
    cells[4] = `<td style="background:${colour};color:#fff">${xmlText(f.caught)}</td>`;
    return `<tr title="${xmlText(row.why ?? 'the unmutated sink')}">${cells.join('')}</tr>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Detection matrix</title><style>body{font:14px system-ui,sans-serif;margin:24px;color:#212121}table{border-collapse:collapse}th,td{border:1px solid #bdbdbd;padding:4px 8px;text-align:left}</style></head>
<body><h1>Detection matrix</h1><p>${xmlText(`run ${matrix.runId} · seeds ${matrix.seeds.join(', ')} · ${(matrix.durationMs / 1000).toFixed(0)} s`)}</p>
<table><tr><th>mutant</th><th>class</th><th>scenario</th><th>caught in</th><th>caught</th><th>runs to detection</th><th>seconds to detection</th><th>seconds shrinking</th></tr>
${rows.join('\n')}
</table>
<ul>${matrix.rows
    .filter((row) => row.why !== null)
    .map((row) => `<li><b>${xmlText(row.subject)}</b>: ${xmlText(row.why ?? '')}</li>`)
    .join('')}</ul>
</body></html>
`;
}

/** One test case per mutant (a miss is a failure) and per control scenario (a non-pass is a failure). */
export function matrixJunit(matrix: MutationMatrix): string {
  const cases = matrix.rows.map((row) => {
    const open = `    <testcase classname="${xmlText(row.kind === 'control' ? 'control' : 'mutant')}" name="${xmlText(`${row.subject} / ${row.sinkClass} / ${row.scenario}`)}" time="${row.detections.reduce((t, d) => t + (d.secondsToDetection ?? 0), 0).toFixed(3)}"`;
    if (rowHolds(row)) return `${open}/>`;
    const body = row.detections
      .map(
        (d) =>
          `seed ${d.seed}: ${d.verdict}${d.categories.length > 0 ? ` (${d.categories.join(', ')})` : ''} — ${d.replayCommand}`,
      )
      .join('\n');
    return `${open}>\n      <failure message="${row.kind === 'control' ? 'the unmutated sink did not pass' : 'the mutant was not caught in its category on every seed'}">${xmlText(body)}</failure>\n    </testcase>`;
  });
  const failures = matrix.rows.filter((row) => !rowHolds(row)).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mutants ${xmlText(matrix.runId)}">\n  <testsuite name="detection matrix" tests="${matrix.rows.length}" failures="${failures}">\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}
