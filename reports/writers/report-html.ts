import {
  classConfigurations,
  type ClassReport,
  type JobReport,
  type ScenarioReport,
  mostEventfulRun,
  type RunTimeline,
} from '../results/index.ts';
import { configurationRows } from './configuration-rows.ts';
import { readsPanel, sinkReadsPanel } from './reads-chart.ts';
import { KAFKA_ENGINE_CLASS, STAGED_LOADER_CLASS, type Verdict } from '../../properties/base/index.ts';
import {
  dedupStatement,
  escapeHtml,
  faultProxyText,
  RECOVERY_CAPTION,
  RECOVERY_HEADER,
  recoveryCells,
  watchedClasses,
  unknownSplit,
  VERDICT_COLOUR,
} from './figures.ts';

const OUTCOME_COLOUR = { ok: '#2e7d32', failed: '#c62828', unknown: '#ef6c00' } as const;
const MARK_COLOUR = {
  crash: '#c62828',
  refusal: '#6a1b9a',
  'worker-start': '#9e9e9e',
  reconfigure: '#00838f',
} as const;

const WIDTH = 960;
const LEFT = 56;
const RIGHT = 12;
const LATENCY_TOP = 10;
const LATENCY_HEIGHT = 110;
const THROUGHPUT_TOP = 140;
const THROUGHPUT_HEIGHT = 60;
const AXIS_Y = 212;
const HEIGHT = 232;

const fixed = (value: number): string => value.toFixed(1);

function verdictCell(verdict: Verdict, text: string = verdict): string {
  return `<td class="verdict" style="background:${VERDICT_COLOUR[verdict]}">${escapeHtml(text)}</td>`;
}

function matrix(run: JobReport): string {
  const scenarios = [
    ...new Set(Object.values(run.classes).flatMap((result) => result.scenarios.map((scenario) => scenario.name))),
  ];
  const header = ['class', 'guarantee', 'verdict', ...scenarios, 'INSERT p50 / p95 ms', 'rows/s']
    .map((cell) => `<th>${escapeHtml(cell)}</th>`)
    .join('');
  const rows = Object.entries(run.classes).map(([name, result]) => {
    const cells = scenarios.map((scenarioName) => {
      const scenario = result.scenarios.find((candidate) => candidate.name === scenarioName);
      return scenario === undefined
        ? '<td class="none">—</td>'
        : verdictCell(
            scenario.verdict,
            `${scenario.verdict} · ${scenario.runs} run${scenario.runs === 1 ? '' : 's'}${scenario.shrinkRuns > 0 ? ` + ${scenario.shrinkRuns} shrinking` : ''}`,
          );
    });
    const latency = result.performance.latencyMs;
    const rowsPerSecond = result.performance.rowsPerSecond;
    return `<tr><th>${escapeHtml(name)}</th><td>${escapeHtml(result.guarantee)}</td>${verdictCell(result.verdict)}${cells.join('')}<td>${latency === null ? '—' : `${fixed(latency.p50)} / ${fixed(latency.p95)}`}</td><td>${rowsPerSecond === null ? '—' : rowsPerSecond.toFixed(0)}</td></tr>`;
  });
  return `<table class="matrix"><thead><tr>${header}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Per class: how fast it made progress again after the heals. */
function recoveryTable(run: JobReport): string {
  const header = RECOVERY_HEADER.map((cell) => `<th>${escapeHtml(cell)}</th>`).join('');
  const rows = watchedClasses(run.classes).map(
    ([name, result]) =>
      `<tr>${recoveryCells(name, result.performance.recovery)
        .map((cell) => `<td>${escapeHtml(cell)}</td>`)
        .join('')}</tr>`,
  );
  return `<p class="caption">${escapeHtml(RECOVERY_CAPTION)}</p><table class="matrix"><thead><tr>${header}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Latency on a log scale from 1 ms to the run's slowest attempt, so fast and stalled attempts both show. */
function latencyScale(timeline: RunTimeline): (ms: number) => number {
  const slowest = Math.max(10, ...timeline.inserts.map((insert) => insert.end - insert.start));
  const top = Math.log10(slowest);
  return (ms) => LATENCY_TOP + LATENCY_HEIGHT - (Math.log10(Math.max(1, ms)) / top) * LATENCY_HEIGHT;
}

const BIN_SIZES_MS = [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000];

/** Rows per second of successful INSERTs, by completion time, in at most 60 bins of a round size. */
function throughputBins(timeline: RunTimeline): { readonly binMs: number; readonly rates: number[] } {
  const binMs = BIN_SIZES_MS.find((size) => timeline.duration / size <= 60) ?? 60_000;
  const rates = new Array<number>(Math.max(1, Math.ceil(timeline.duration / binMs))).fill(0);
  for (const insert of timeline.inserts) {
    if (insert.outcome !== 'ok') continue;
    const bin = Math.min(rates.length - 1, Math.floor(insert.end / binMs));
    rates[bin] = (rates[bin] ?? 0) + (insert.rows * 1000) / binMs;
  }
  return { binMs, rates };
}

function timelineSvg(timeline: RunTimeline): string {
  const span = Math.max(1, timeline.duration);
  const x = (ms: number): number => LEFT + (ms / span) * (WIDTH - LEFT - RIGHT);
  const y = latencyScale(timeline);
  const parts: string[] = [];
  for (const fault of timeline.faults) {
    const width = Math.max(1, x(fault.end) - x(fault.start));
    parts.push(
      `<rect class="fault" x="${fixed(x(fault.start))}" y="${LATENCY_TOP}" width="${fixed(width)}" height="${THROUGHPUT_TOP + THROUGHPUT_HEIGHT - LATENCY_TOP}"><title>${escapeHtml(`${fault.fault}: ${fault.description} (${(fault.start / 1000).toFixed(1)}–${(fault.end / 1000).toFixed(1)} s)`)}</title></rect>`,
      `<text class="fault-label" x="${fixed(x(fault.start) + 2)}" y="${LATENCY_TOP + 9}">${escapeHtml(fault.fault)}</text>`,
    );
  }
  for (const mark of timeline.marks) {
    parts.push(
      `<line x1="${fixed(x(mark.at))}" x2="${fixed(x(mark.at))}" y1="${LATENCY_TOP}" y2="${THROUGHPUT_TOP + THROUGHPUT_HEIGHT}" stroke="${MARK_COLOUR[mark.kind]}"${mark.kind === 'worker-start' ? ' stroke-dasharray="3 3"' : ' stroke-width="2"'}><title>${escapeHtml(mark.label)}</title></line>`,
    );
  }
  for (const insert of timeline.inserts) {
    const latency = insert.end - insert.start;
    if (!insert.completed) {
      // No latency to plot: a triangle on the top edge, at the moment the attempt began.
      const left = x(insert.start);
      parts.push(
        `<path d="M${fixed(left - 4)} ${LATENCY_TOP} L${fixed(left + 4)} ${LATENCY_TOP} L${fixed(left)} ${LATENCY_TOP + 7} Z" fill="${OUTCOME_COLOUR.unknown}"><title>${escapeHtml(`never completed (the worker died): ${insert.rows} rows, at ${(insert.start / 1000).toFixed(2)} s`)}</title></path>`,
      );
      continue;
    }
    parts.push(
      `<circle cx="${fixed(x(insert.start))}" cy="${fixed(y(latency))}" r="${insert.retry ? 3.5 : 2.5}" fill="${OUTCOME_COLOUR[insert.outcome]}"${insert.retry ? ' fill-opacity="0.5" stroke="#000" stroke-width="0.5"' : ''}><title>${escapeHtml(`${insert.outcome}${insert.retry ? ' (retry)' : ''}: ${latency.toFixed(0)} ms, ${insert.rows} rows, at ${(insert.start / 1000).toFixed(2)} s`)}</title></circle>`,
    );
  }
  const { binMs, rates } = throughputBins(timeline);
  const peak = Math.max(1, ...rates);
  rates.forEach((rate, index) => {
    if (rate === 0) return;
    const from = index * binMs;
    const to = Math.min(span, from + binMs);
    const height = (rate / peak) * THROUGHPUT_HEIGHT;
    parts.push(
      `<rect class="bar" x="${fixed(x(from))}" y="${fixed(THROUGHPUT_TOP + THROUGHPUT_HEIGHT - height)}" width="${fixed(Math.max(1, x(to) - x(from) - 1))}" height="${fixed(height)}"><title>${rate.toFixed(0)} rows/s from ${(from / 1000).toFixed(1)} s to ${(to / 1000).toFixed(1)} s</title></rect>`,
    );
  });
  const step = Math.max(1, Math.ceil(span / 1000 / 12));
  for (let second = 0; second * 1000 <= span; second += step) {
    parts.push(`<text class="tick" x="${fixed(x(second * 1000))}" y="${AXIS_Y}">${second}s</text>`);
  }
  const slowest = Math.max(10, ...timeline.inserts.map((insert) => insert.end - insert.start));
  parts.push(
    `<text class="axis" x="4" y="${LATENCY_TOP + 8}">${slowest.toFixed(0)} ms</text>`,
    `<text class="axis" x="4" y="${LATENCY_TOP + LATENCY_HEIGHT}">1 ms</text>`,
    `<text class="axis" x="4" y="${THROUGHPUT_TOP + 8}">${peak.toFixed(0)} rows/s</text>`,
    `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${THROUGHPUT_TOP + THROUGHPUT_HEIGHT}" y2="${THROUGHPUT_TOP + THROUGHPUT_HEIGHT}" stroke="#757575"/>`,
  );
  return `<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(`timeline of ${timeline.sinkClass} / ${timeline.scenario} ${timeline.run}`)}">${parts.join('')}</svg>`;
}

function scenarioPanel(name: string, scenario: ScenarioReport, timelines: readonly RunTimeline[]): string {
  const own = timelines.filter((timeline) => timeline.sinkClass === name && timeline.scenario === scenario.name);
  const shown = mostEventfulRun(own);
  const unknown = shown?.inserts.filter((insert) => insert.outcome === 'unknown').length ?? 0;
  const failed = shown?.inserts.filter((insert) => insert.outcome === 'failed').length ?? 0;
  const caption =
    shown === undefined
      ? name === KAFKA_ENGINE_CLASS
        ? "no INSERT timeline: ClickHouse's own consumers wrote this class's rows; each run below, with what it stored"
        : scenario.reads !== undefined
          ? 'no INSERT timeline: the loader stages and switches partitions; what its readers saw, per operation'
          : 'no history was recorded for this scenario'
      : `${shown.run} of ${own.length} (the one with the most failed or unknown INSERTs): ${(shown.duration / 1000).toFixed(1)} s, ${shown.inserts.length} INSERT attempts (${failed} failed, ${unknown} unknown), ${shown.faults.length} fault windows${scenario.cluster === undefined ? '' : `, cluster ${scenario.cluster}`}`;
  const notes = [
    ...scenario.notes,
    ...scenario.anomalies.map((anomaly) => `${anomaly.category} (${anomaly.count}): ${anomaly.examples.join(', ')}`),
  ];
  const giveUps =
    scenario.giveUps.length === 0
      ? ''
      : `<p class="caption">Give-ups, judged against the retry budget:</p><ul class="give-ups">${scenario.giveUps.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`;
  return [
    `<section class="scenario"><h3>${escapeHtml(scenario.name)} <span class="badge" style="background:${VERDICT_COLOUR[scenario.verdict]}">${escapeHtml(scenario.verdict)}</span></h3>`,
    `<p class="caption">${escapeHtml(caption)}</p>`,
    shown === undefined ? '' : timelineSvg(shown),
    scenario.reads === undefined
      ? ''
      : scenario.sinkClass === STAGED_LOADER_CLASS
        ? readsPanel(scenario.reads)
        : sinkReadsPanel(scenario.reads),
    notes.length === 0 ? '' : `<ul>${notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>`,
    giveUps,
    scenario.verdict === 'pass'
      ? ''
      : `<pre>${escapeHtml([scenario.replayCommand, scenario.scheduleReplayCommand].filter((line) => line !== undefined).join('\n'))}</pre>`,
    '</section>',
  ].join('');
}

function classSection(
  name: string,
  result: ClassReport,
  timelines: readonly RunTimeline[],
  backendLimits: readonly string[],
): string {
  const c = result.tally.counts;
  return [
    `<section class="class"><h2>${escapeHtml(name)} <span class="badge" style="background:${VERDICT_COLOUR[result.verdict]}">${escapeHtml(result.verdict)}</span></h2>`,
    `<p>${escapeHtml(`${result.guarantee} · attempted ${c.attempted} · acknowledged ${c.acknowledged} · lost ${c.lost} · duplicated ${c.duplicated} · unexpected ${c.unexpected} · recovered ${c.recovered} · gave up ${result.tally.giveUps} (rows held back ${c.gaveUp}) · inserts ok/failed/unknown ${result.tally.inserts.ok}/${result.tally.inserts.failed}/${result.tally.inserts.unknown} · unknown → landed/absent ${unknownSplit(result.tally.unknownOutcomes)} · replays ${result.tally.replays} · dedup hits ${result.tally.dedupHits} · refusals ${result.tally.refusals} · server dedup ${dedupStatement(result.tally.serverDedup)}`)}</p>`,
    configurationTable(result, backendLimits),
    ...result.scenarios.map((scenario) => scenarioPanel(name, scenario, timelines)),
    '</section>',
  ].join('');
}

/** The class's runs by configuration, with the guarantee the seed owes there (as in report.md). */
function configurationTable(result: ClassReport, backendLimits: readonly string[]): string {
  const rows = configurationRows(classConfigurations(result.scenarios), result.guarantee, backendLimits);
  if (rows.length === 0) return '';
  const cells = rows.map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`);
  return `<p class="caption">Runs by configuration (table and its dedup, a view behind it, the sink user’s settings, async_insert), with the guarantee the seed owes there:</p><table class="matrix"><tr><th>configuration</th><th>guarantee owed</th><th>runs</th><th>guarantee</th><th>lost</th><th>duplicated</th><th>dedup hits</th></tr>${cells.join('')}</table>`;
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:24px;color:#212121}
table.matrix{border-collapse:collapse}table.matrix th,table.matrix td{border:1px solid #bdbdbd;padding:4px 8px;text-align:left}
td.verdict,.badge{color:#fff}.badge{padding:1px 8px;border-radius:8px;font-size:12px}td.none{color:#9e9e9e}
rect.fault{fill:#ef6c00;fill-opacity:.15}text.fault-label{font-size:9px;fill:#e65100}rect.bar{fill:#1565c0;fill-opacity:.7}
text.tick,text.axis{font-size:10px;fill:#616161}.caption{color:#616161;margin:2px 0}pre{background:#f5f5f5;padding:6px}
section.scenario{margin:12px 0 20px}.legend span{margin-right:14px}`;

/**
 * `report.html`: one self-contained page (inline SVG, no scripts): the class x scenario matrix,
 * then per class and scenario the timeline of its most eventful run — INSERT latency by outcome
 * (log scale), rows per second, fault windows shaded, crashes, refusals, reconfigurations and
 * worker starts marked.
 */
export function reportHtml(run: JobReport, timelines: readonly RunTimeline[]): string {
  const legend = [
    ...Object.entries(OUTCOME_COLOUR).map(
      ([outcome, colour]) => `<span style="color:${colour}">● ${outcome} INSERT</span>`,
    ),
    '<span>larger, outlined: retry or replay</span>',
    `<span style="color:${OUTCOME_COLOUR.unknown}">▼ INSERT cut short by a crash</span>`,
    '<span style="color:#ef6c00">▮ fault window</span>',
    '<span style="color:#1565c0">▮ rows/s acknowledged by INSERTs</span>',
    ...Object.entries(MARK_COLOUR).map(([kind, colour]) => `<span style="color:${colour}">│ ${kind}</span>`),
  ].join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(`Sink guarantee report — ${run.verdict}`)}</title><style>${STYLE}</style></head>
<body><h1>Sink guarantee report <span class="badge" style="background:${VERDICT_COLOUR[run.verdict]}">${escapeHtml(run.verdict)}</span></h1>
<p>${escapeHtml(`run ${run.runId} · backend ${run.backend}${faultProxyText(run.faultProxy)} · profile ${run.profile} · seed ${run.seed} · ${(run.durationMs / 1000).toFixed(1)} s`)}</p>
${matrix(run)}
${recoveryTable(run)}
<p class="legend">${legend}</p>
${Object.entries(run.classes)
  .map(([name, result]) => classSection(name, result, timelines, run.backendLimits))
  .join('\n')}
${run.backendLimits.length === 0 ? '' : `<p class="caption">${escapeHtml(`Backend limits (${run.backend}): ${run.backendLimits.join('; ')}.`)}</p>`}
</body></html>
`;
}
