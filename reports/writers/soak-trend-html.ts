import type { Verdict } from '../../properties/base/index.ts';
import type { TrendLine } from '../results/index.ts';
import { escapeHtml, VERDICT_COLOUR } from './figures.ts';

const SERIES_COLOURS = [
  '#1565c0',
  '#c62828',
  '#2e7d32',
  '#ef6c00',
  '#6a1b9a',
  '#00838f',
  '#5d4037',
  '#ad1457',
  '#9e9d24',
  '#37474f',
];

const WIDTH = 960;
const HEIGHT = 200;
const LEFT = 60;
const RIGHT = 190;
const TOP = 12;
const BOTTOM = 28;

/** Every class any iteration reported, in the order they first appear. */
function classesOf(lines: readonly TrendLine[]): string[] {
  return [...new Set(lines.flatMap((line) => Object.keys(line.classes)))];
}

function verdictGrid(lines: readonly TrendLine[]): string {
  const header = ['class', ...lines.map((line) => `#${line.iteration}`)]
    .map((cell) => `<th>${escapeHtml(cell)}</th>`)
    .join('');
  const cell = (verdict: Verdict | undefined, title: string) =>
    verdict === undefined
      ? '<td class="none">—</td>'
      : `<td class="verdict" style="background:${VERDICT_COLOUR[verdict]}" title="${escapeHtml(title)}">${escapeHtml(verdict)}</td>`;
  const runRow = `<tr><th>run</th>${lines
    .map((line) => {
      const label =
        line.reproduced === undefined || line.reproduced === null
          ? line.verdict
          : `${line.verdict} · ${line.reproduced ? 'reproduced' : 'not reproduced'}`;
      const clusters = line.clusters === undefined ? '' : `, clusters ${line.clusters.join(' and ')}`;
      return cell(line.verdict, `seed ${line.seed}, ${(line.duration_ms / 1000).toFixed(0)} s${clusters}`).replace(
        `>${escapeHtml(line.verdict)}<`,
        `>${escapeHtml(label)}<`,
      );
    })
    .join('')}</tr>`;
  const rows = classesOf(lines).map(
    (name) =>
      `<tr><th>${escapeHtml(name)}</th>${lines.map((line) => cell(line.classes[name]?.verdict, `seed ${line.seed}`)).join('')}</tr>`,
  );
  return `<table class="grid"><thead><tr>${header}</tr></thead><tbody>${runRow}${rows.join('')}</tbody></table>`;
}

interface Series {
  readonly name: string;
  /** One value per iteration; null where the iteration has none. */
  readonly values: readonly (number | null)[];
}

/** A line chart over the iterations, one line per series, a legend on the right. */
function chart(title: string, unit: string, lines: readonly TrendLine[], series: readonly Series[]): string {
  const all = series.flatMap((each) => each.values.filter((value): value is number => value !== null));
  if (all.length === 0) return `<h2>${escapeHtml(title)}</h2><p class="empty">no data in these iterations</p>`;
  const max = Math.max(...all) * 1.1 || 1;
  const x = (index: number) => LEFT + (lines.length === 1 ? 0.5 : index / (lines.length - 1)) * (WIDTH - LEFT - RIGHT);
  const y = (value: number) => TOP + (1 - value / max) * (HEIGHT - TOP - BOTTOM);
  const parts: string[] = [];
  for (const fraction of [0, 0.25, 0.5, 0.75, 1]) {
    const value = max * fraction;
    parts.push(
      `<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}"/>`,
      `<text class="axis" x="${LEFT - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${value.toFixed(value >= 100 ? 0 : 1)}</text>`,
    );
  }
  lines.forEach((line, index) =>
    parts.push(
      `<text class="axis" x="${x(index).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">#${line.iteration}</text>`,
    ),
  );
  series.forEach((each, seriesIndex) => {
    const colour = SERIES_COLOURS[seriesIndex % SERIES_COLOURS.length] ?? '#000';
    const points = each.values.flatMap((value, index) => (value === null ? [] : [{ index, value }]));
    if (points.length > 1)
      parts.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.map((point) => `${x(point.index).toFixed(1)},${y(point.value).toFixed(1)}`).join(' ')}"/>`,
      );
    for (const point of points) {
      parts.push(
        `<circle cx="${x(point.index).toFixed(1)}" cy="${y(point.value).toFixed(1)}" r="3.5" fill="${colour}"><title>${escapeHtml(`${each.name}, iteration #${lines[point.index]?.iteration}: ${point.value.toFixed(1)} ${unit}`)}</title></circle>`,
      );
    }
    parts.push(
      `<rect x="${WIDTH - RIGHT + 12}" y="${TOP + seriesIndex * 16}" width="10" height="10" fill="${colour}"/>`,
      `<text class="legend" x="${WIDTH - RIGHT + 26}" y="${TOP + seriesIndex * 16 + 9}">${escapeHtml(each.name)}</text>`,
    );
  });
  return `<h2>${escapeHtml(title)} <span class="unit">(${escapeHtml(unit)})</span></h2><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(title)}">${parts.join('')}</svg>`;
}

/** A count over an iteration as a rate per hour of its wall time; null where there is no count. */
function perHour(count: number | undefined, durationMs: number): number | null {
  return count === undefined || durationMs <= 0 ? null : (count * 3_600_000) / durationMs;
}

/**
 * The soak's volume over every iteration so far: messages per hour of wall time for the class
 * given the fewest, the figure a night's reach (a loss of one in 10^5) depends on.
 */
function volumeLine(lines: readonly TrendLine[]): string {
  const hours = lines.reduce((total, line) => total + line.duration_ms, 0) / 3_600_000;
  const rates = classesOf(lines).flatMap((name) => {
    const counted = lines.filter((line) => line.classes[name]?.attempted !== undefined);
    if (counted.length === 0 || hours <= 0) return [];
    return [{ name, rate: counted.reduce((total, line) => total + (line.classes[name]?.attempted ?? 0), 0) / hours }];
  });
  const least = rates.sort((a, b) => a.rate - b.rate)[0];
  if (least === undefined) return '';
  return `<p class="sub">Fewest messages per hour of soak: ${Math.round(least.rate).toLocaleString('en-US')} (${escapeHtml(least.name)}), over ${(hours * 60).toFixed(0)} min</p>`;
}

/**
 * `soak-trend.html`: the nightly soak's history at a glance, drawn from `soak-trend.jsonl` — the
 * verdict of every class in every iteration (a non-pass one says whether its re-run reproduced
 * it), the messages per class per iteration and per hour, INSERT latency and rows per second
 * per class, and the peak RSS of every cluster process and of the runner, so a slow drift shows
 * before it fails a night. One self-contained page.
 */
export function soakTrendHtml(lines: readonly TrendLine[]): string {
  const classes = classesOf(lines);
  const metric = (pick: (line: TrendLine, name: string) => number | null | undefined) =>
    classes.map((name) => ({ name, values: lines.map((line) => pick(line, name) ?? null) }));
  const members = [...new Set(lines.flatMap((line) => Object.keys(line.cluster_peak_rss_mib ?? {})))];
  const memory: Series[] = [
    ...members.map((member) => ({
      name: member,
      values: lines.map((line) => line.cluster_peak_rss_mib?.[member] ?? null),
    })),
    { name: 'runner', values: lines.map((line) => line.rss_mib) },
  ];
  const passed = lines.filter((line) => line.verdict === 'pass').length;
  const first = lines[0];
  const last = lines.at(-1);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>soak trend</title>
<style>
body{font-family:system-ui,sans-serif;margin:24px;color:#212121}
h1{font-size:20px;margin:0 0 4px} h2{font-size:15px;margin:22px 0 6px} .unit{color:#757575;font-weight:normal}
p.sub{color:#616161;margin:0 0 12px}
table.grid{border-collapse:collapse;font-size:12px} .grid th,.grid td{border:1px solid #e0e0e0;padding:4px 6px;text-align:center} .grid th:first-child{text-align:left}
td.verdict{color:#fff;white-space:nowrap} td.none{color:#9e9e9e}
svg{display:block;background:#fafafa;border:1px solid #eee} line.grid{stroke:#e0e0e0} text.axis{font-size:11px;fill:#616161} text.legend{font-size:11px;fill:#212121}
p.empty{color:#9e9e9e}
</style></head><body>
<h1>Soak trend: ${passed} of ${lines.length} iterations passed</h1>
<p class="sub">${lines.length === 0 ? 'no iteration yet' : `iterations #${first?.iteration}–#${last?.iteration}, seeds ${escapeHtml(lines.map((line) => line.seed).join(', '))}`}</p>
${volumeLine(lines)}
<h2>Verdicts per class and iteration</h2>
${verdictGrid(lines)}
${chart(
  'Messages written per class',
  'messages',
  lines,
  metric((line, name) => line.classes[name]?.attempted),
)}
${chart(
  'Messages written per class per hour of soak',
  'messages/h',
  lines,
  metric((line, name) => perHour(line.classes[name]?.attempted, line.duration_ms)),
)}
${chart(
  'INSERT latency p95 per class',
  'ms',
  lines,
  metric((line, name) => line.classes[name]?.insert_latency_ms?.p95),
)}
${chart(
  'INSERT latency p50 per class',
  'ms',
  lines,
  metric((line, name) => line.classes[name]?.insert_latency_ms?.p50),
)}
${chart(
  'Rows per second of successful INSERTs per class',
  'rows/s',
  lines,
  metric((line, name) => line.classes[name]?.rows_per_second),
)}
${chart('Peak RSS per process', 'MiB', lines, memory)}
${chart('Iteration wall time', 's', lines, [{ name: 'iteration', values: lines.map((line) => line.duration_ms / 1000) }])}
</body></html>
`;
}
