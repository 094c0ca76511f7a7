import type { Verdict } from '../base/index.ts';
import type { AnomalyCategory } from './anomaly-category.ts';

export interface Anomaly {
  readonly category: AnomalyCategory;
  readonly count: number;
  /** Up to five example message ids (or tokens, replicas...), for the report. */
  readonly examples: readonly string[];
}

export interface CheckResult {
  readonly checker: string;
  readonly verdict: Verdict;
  readonly anomalies: readonly Anomaly[];
  readonly notes?: readonly string[];
}

export function anomaly(category: AnomalyCategory, items: Iterable<string>): Anomaly {
  const all = [...items];
  return { category, count: all.length, examples: all.slice(0, 5) };
}

export function resultOf(checker: string, anomalies: readonly Anomaly[], notes?: readonly string[]): CheckResult {
  const found = anomalies.filter((item) => item.count > 0);
  return { checker, verdict: found.length > 0 ? 'violation' : 'pass', anomalies: found, ...(notes ? { notes } : {}) };
}

/** Anomalies of several runs, one per category: counts added, the first five examples kept. */
export function mergeAnomalies(anomalies: readonly Anomaly[]): Anomaly[] {
  const merged = new Map<string, Anomaly>();
  for (const found of anomalies) {
    const seen = merged.get(found.category);
    merged.set(
      found.category,
      seen === undefined
        ? found
        : {
            category: found.category,
            count: seen.count + found.count,
            examples: [...seen.examples, ...found.examples].slice(0, 5),
          },
    );
  }
  return [...merged.values()];
}
