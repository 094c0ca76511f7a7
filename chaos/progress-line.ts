import type { ScenarioReport } from '../reports/results/index.ts';

/** The longest reason a progress line carries: CI keeps the output, not the report directory. */
const REASON_LIMIT = 300;

/**
 * One scenario's progress line. A line that is not a pass says why in a few words (the anomaly
 * categories with their counts, or the first note of an infra-error or an inconclusive run) and
 * gives its replay command: a CI log is often all that is left of a run on another machine.
 */
export function scenarioProgressLine(result: ScenarioReport, done: number, total: number): string {
  const shrunk = result.shrinkRuns > 0 ? ` + ${result.shrinkRuns} shrink steps` : '';
  const head = `[${done}/${total}] ${result.sinkClass} / ${result.name}: ${result.verdict} (${result.runs} runs${shrunk}, ${(result.durationMs / 1000).toFixed(1)} s)`;
  if (result.verdict === 'pass') return head;
  const reason = reasonOf(result);
  const why = reason === '' ? '' : ` [${reason}]`;
  return result.verdict === 'interrupted' ? `${head}${why}` : `${head}${why} — ${result.replayCommand}`;
}

function reasonOf(result: ScenarioReport): string {
  if (result.verdict === 'violation' && result.anomalies.length > 0)
    return result.anomalies.map((anomaly) => `${anomaly.category}×${anomaly.count}`).join(', ');
  const [first] = result.notes;
  if (first === undefined) return '';
  const line = first.replace(/\s+/g, ' ').trim();
  return line.length > REASON_LIMIT ? `${line.slice(0, REASON_LIMIT - 1)}…` : line;
}
