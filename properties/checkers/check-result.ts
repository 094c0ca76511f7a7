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
