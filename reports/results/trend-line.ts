import { existsSync, readFileSync } from 'node:fs';
import type { Verdict } from '../../properties/base/index.ts';
import { StoredShape } from './stored-shape.ts';

/** The version of a `soak-trend.jsonl` line: raised when a field changes meaning. */
export const TREND_LINE_VERSION = 1;

const VERDICTS: readonly Verdict[] = ['pass', 'violation', 'inconclusive', 'interrupted', 'infra-error'];

/** One line of `soak-trend.jsonl`, as `chaos/soak-trend.ts` writes it (the fields drawn here). */
export interface TrendLine {
  readonly version: typeof TREND_LINE_VERSION;
  readonly iteration: number;
  readonly run_id: string;
  readonly seed: number;
  readonly verdict: Verdict;
  readonly duration_ms: number;
  readonly rss_mib: number;
  readonly cluster_peak_rss_mib: Readonly<Record<string, number>> | null;
  /** For an iteration that did not pass: did its re-run with the same seed and path fail again? */
  readonly reproduced?: boolean | null;
  /** The cluster shapes the iteration's scenarios ran on (`2x2 (s1, s2)`); absent on an attached cluster or an older line. */
  readonly clusters?: readonly string[];
  readonly classes: Readonly<
    Record<
      string,
      {
        readonly verdict: Verdict;
        /** Messages the sink was given over the iteration (an older line may lack it). */
        readonly attempted?: number;
        readonly insert_latency_ms: { readonly p50: number; readonly p95: number } | null;
        readonly rows_per_second: number | null;
      }
    >
  >;
}

/**
 * The lines of a soak's `soak-trend.jsonl` (none when it does not exist yet), each of this
 * harness's version and with the fields the trend page draws; a line of another version or shape
 * is refused, naming the file, the line and the field.
 */
export function readTrendLines(file: string): TrendLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((text, index) => {
      if (text === '') return [];
      const shape = new StoredShape(`${file}:${index + 1}`);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        shape.fail('', 'a JSON line', text);
      }
      shape.version(value, TREND_LINE_VERSION, 'give the soak another --report-dir, or move the old trend away');
      const line = shape.object(value, '');
      for (const field of ['iteration', 'seed', 'duration_ms', 'rss_mib'] as const) shape.number(line[field], field);
      shape.string(line.run_id, 'run_id');
      shape.oneOf(line.verdict, 'verdict', VERDICTS);
      if (line.cluster_peak_rss_mib !== null) shape.counts(line.cluster_peak_rss_mib, 'cluster_peak_rss_mib');
      if (line.reproduced !== null && line.reproduced !== undefined) shape.boolean(line.reproduced, 'reproduced');
      for (const [name, figures] of Object.entries(shape.object(line.classes, 'classes'))) {
        const at = `classes.${name}`;
        const f = shape.object(figures, at);
        shape.oneOf(f.verdict, `${at}.verdict`, VERDICTS);
        if (f.insert_latency_ms !== null) shape.counts(f.insert_latency_ms, `${at}.insert_latency_ms`);
        if (f.rows_per_second !== null) shape.number(f.rows_per_second, `${at}.rows_per_second`);
      }
      return [line as unknown as TrendLine];
    });
}
