import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { storedJobReport, type JobReport, type RunTimeline } from '../results/index.ts';
import { reportHtml } from './report-html.ts';
import { junitXml } from './junit-xml.ts';
import { reportMarkdown } from './report-md.ts';
import { summaryJson } from './summary-json.ts';

/** A reporter turns a finished run (and its runs' timelines, for the drawings) into one artifact file. */
export interface Reporter {
  readonly file: string;
  render(run: JobReport, timelines: readonly RunTimeline[]): string;
}

export const REPORTERS: readonly Reporter[] = [
  { file: 'summary.json', render: summaryJson },
  // The result as the harness holds it: what `chaos:merge` reads back to join slices.
  { file: 'run-result.json', render: storedJobReport },
  { file: 'report.md', render: reportMarkdown },
  { file: 'junit.xml', render: junitXml },
  { file: 'report.html', render: reportHtml },
];

/** Writes every reporter's file into the run directory and points `<reportDir>/latest` at it. */
export function writeRunReports(
  run: JobReport,
  timelines: readonly RunTimeline[],
  runDir: string,
  reportDir: string,
): void {
  mkdirSync(runDir, { recursive: true });
  for (const reporter of REPORTERS) writeFileSync(join(runDir, reporter.file), reporter.render(run, timelines));
  const latest = join(reportDir, 'latest');
  rmSync(latest, { force: true });
  symlinkSync(relative(reportDir, runDir), latest);
}
