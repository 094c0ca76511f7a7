import type { ReadFigures, ReadTimeline } from '../results/index.ts';
import { escapeHtml } from './figures.ts';

const WIDTH = 960;
const LEFT = 56;
const RIGHT = 12;
const TOP = 10;
const PLOT_HEIGHT = 150;
const AXIS_Y = TOP + PLOT_HEIGHT + 14;
const HEIGHT = AXIS_Y + 8;
const READ_COLOUR = { whole: '#607d8b', split: '#ef6c00', fractured: '#c62828' } as const;

const fixed = (value: number): string => value.toFixed(1);

/**
 * One run's reads over time: each read a dot at the moment it was sent, as high as the number of
 * (table, load) parts it saw whole — a staircase as loads are published. Reads that saw a
 * multi-table load in some tables only are orange, reads that saw part of a load red; each load's
 * cross-table window is shaded.
 */
export function readsSvg(operation: string, timeline: ReadTimeline): string {
  const span = Math.max(1, timeline.durationMs);
  const x = (ms: number): number => LEFT + (ms / span) * (WIDTH - LEFT - RIGHT);
  const top = Math.max(1, timeline.parts);
  const y = (seen: number): number => TOP + PLOT_HEIGHT - (seen / top) * PLOT_HEIGHT;
  const parts: string[] = [];
  for (const window of timeline.windows)
    parts.push(
      `<rect class="fault" x="${fixed(x(window.fromMs))}" y="${TOP}" width="${fixed(Math.max(1, x(window.toMs) - x(window.fromMs)))}" height="${PLOT_HEIGHT}"><title>${escapeHtml(`load ${window.load}: seen in some tables and not the others for ${window.toMs - window.fromMs} ms`)}</title></rect>`,
    );
  for (const read of timeline.reads) {
    const kind = read.fractured ? 'fractured' : read.split ? 'split' : 'whole';
    parts.push(
      `<circle cx="${fixed(x(read.atMs))}" cy="${fixed(y(read.seen))}" r="${kind === 'whole' ? 1.8 : 3}" fill="${READ_COLOUR[kind]}"><title>${escapeHtml(`${read.replica} at ${read.atMs} ms: ${read.seen} of ${timeline.parts} load parts whole${read.split ? ', a load in some tables only' : ''}${read.fractured ? ', part of a load' : ''}`)}</title></circle>`,
    );
  }
  const step = Math.max(1, Math.ceil(span / 1000 / 12));
  for (let second = 0; second * 1000 <= span; second += step)
    parts.push(`<text class="tick" x="${fixed(x(second * 1000))}" y="${AXIS_Y}">${second}s</text>`);
  parts.push(
    `<text class="axis" x="4" y="${TOP + 8}">${timeline.parts} parts</text>`,
    `<text class="axis" x="4" y="${TOP + PLOT_HEIGHT}">0</text>`,
    `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${TOP + PLOT_HEIGHT}" y2="${TOP + PLOT_HEIGHT}" stroke="#757575"/>`,
  );
  return `<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(`reads over time, ${operation}, run ${timeline.run}`)}">${parts.join('')}</svg>`;
}

/** A scenario's readers, per operation: the figures in a line and the widest run's reads as a chart. */
export function readsPanel(reads: readonly ReadFigures[]): string {
  return reads
    .map((figures) => {
      const window =
        figures.windowMs === null
          ? 'no load spanned tables'
          : `window p50 ${figures.windowMs.p50} ms, p95 ${figures.windowMs.p95} ms, max ${figures.windowMs.max} ms over ${figures.loads} multi-table loads (${figures.splitReads} split reads)`;
      const repair =
        figures.underRepair === undefined || figures.underRepair.reads === 0
          ? ''
          : `, ${figures.underRepair.reads} of a replica under repair (${figures.underRepair.fractured} saw part of a load, not judged)`;
      const caption = `${figures.operation}: ${figures.reads} reads (${figures.failedReads} failed), ${figures.fractured} fractured${repair}; ${window}${figures.shown === undefined ? '' : `. Run ${figures.shown.run}, each read a dot (height: load parts seen whole; orange: a load in some tables only; red: part of a load), each load's window shaded:`}`;
      return `<p class="caption">${escapeHtml(caption)}</p>${figures.shown === undefined ? '' : readsSvg(figures.operation, figures.shown)}`;
    })
    .join('');
}

/** What a sink scenario's reader saw, per way of reading, in a line each (measured, not judged). */
export function sinkReadsPanel(reads: readonly ReadFigures[]): string {
  return reads
    .map((figures) => {
      const window =
        figures.windowMs === null
          ? 'no batch over several shards showed on some of them only'
          : `${figures.splitReads} reads saw a batch on some of its shards only (of ${figures.loads} batches over several shards); window p50 ${figures.windowMs.p50} ms, p95 ${figures.windowMs.p95} ms, max ${figures.windowMs.max} ms`;
      const staleness =
        figures.operation === 'through _dist'
          ? `${figures.stale ?? 0} missed an INSERT acknowledged before it began, `
          : '';
      const caption = `A reader${figures.sequential === true ? ' with select_sequential_consistency = 1' : ''}, ${figures.operation}: ${figures.reads} reads (${figures.failedReads} failed), ${figures.fractured} saw part of one INSERT, ${staleness}${figures.wentBack ?? 0} lacked a row an earlier read saw; ${window}.`;
      return `<p class="caption">${escapeHtml(caption)}</p>`;
    })
    .join('');
}
