import { matrixHeadline, rowHolds, type Detection, type MatrixRow, type MutationMatrix } from '../results/index.ts';
import { xmlText } from './junit-xml.ts';

/** The detection matrix of `npm run mutants` as the four artifacts a chaos run has. */
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
  const smallest = pick((d) => d.shrink?.secondsToSmallest);
  const firstSmaller = pick((d) => d.shrink?.secondsToFirstSmaller);
  const truncated = row.detections.filter((d) => d.shrink?.truncated).length;
  return {
    caught: row.kind === 'control' ? `${good}/${row.detections.length} pass` : `${good}/${row.detections.length}`,
    runs: range(pick((d) => d.runsToDetection)),
    seconds: range(pick((d) => d.secondsToDetection)),
    shrink:
      shrink.length === 0
        ? '—'
        : `${range(shrink)}${firstSmaller.length > 0 ? ` (a smaller case after ${range(firstSmaller)})` : ''}${smallest.length > 0 ? ` (smallest case after ${range(smallest)})` : ''}${truncated > 0 ? ` (${truncated} cut short)` : ''}`,
    replay: row.detections.find((d) => d.verdict === 'violation')?.replayCommand ?? '',
  };
}

export function matrixJson(matrix: MutationMatrix): string {
  return `${JSON.stringify({ run_id: matrix.runId, seeds: matrix.seeds, duration_ms: matrix.durationMs, holds: matrix.rows.every(rowHolds) && (matrix.pending ?? []).length === 0, pending: matrix.pending ?? [], rows: matrix.rows }, null, 2)}\n`;
}

export function matrixMarkdown(matrix: MutationMatrix): string {
  const lines = [
    `# Detection matrix — ${matrixHeadline(matrix)}`,
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
  if ((matrix.pending ?? []).length > 0) lines.push('', `Not run yet: ${(matrix.pending ?? []).join(' · ')}.`);
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
<body><h1>Detection matrix — ${xmlText(matrixHeadline(matrix))}</h1><p>${xmlText(`run ${matrix.runId} · seeds ${matrix.seeds.join(', ')} · ${(matrix.durationMs / 1000).toFixed(0)} s`)}</p>
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
