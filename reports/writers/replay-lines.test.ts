import { describe, expect, it } from 'vitest';
import type { JobReport } from '../results/index.ts';
import { jobReportOf, scenarioReportOf } from '../results/test-support.ts';
import { junitXml } from './junit-xml.ts';
import { reportHtml } from './report-html.ts';
import { reportMarkdown } from './report-md.ts';
import { summaryJson } from './summary-json.ts';

const SEED_LINE = 'npm run chaos -- --sink ClickHouseBatchingSink --scenario sink-crash --seed 7 --path 0:1';
const SCHEDULE_LINE =
  "npm run chaos -- --sink ClickHouseBatchingSink --scenario sink-crash --schedule 'reports/r 1/ClickHouseBatchingSink__sink-crash/run-3/schedule.json'";

const violated = (scheduleReplayCommand: string | undefined): JobReport =>
  jobReportOf([
    scenarioReportOf({
      name: 'sink-crash',
      verdict: 'violation',
      path: '0:1',
      replayCommand: SEED_LINE,
      scheduleReplayCommand,
      shrinkRuns: 2,
      stopped: 'budget-spent',
      anomalies: [{ category: 'duplicated', count: 1, examples: ['0-1-2'] }],
      commands: ['crash sink at after-insert'],
    }),
  ]);

describe('the replay lines of a violated scenario', () => {
  it('every report gives the seed line and the line that replays the stored input', () => {
    const run = violated(SCHEDULE_LINE);
    expect(reportMarkdown(run)).toContain(`${SEED_LINE}\n\`\`\`\n\nThe same input, even after the generators changed:`);
    expect(reportMarkdown(run)).toContain(SCHEDULE_LINE);
    expect(reportHtml(run, [])).toContain(
      `${SEED_LINE}\nnpm run chaos -- --sink ClickHouseBatchingSink --scenario sink-crash --schedule &#39;reports/r 1/`,
    );
    expect(junitXml(run)).toContain(`replay the input: ${SCHEDULE_LINE}</failure>`);
    expect(JSON.parse(summaryJson(run)).classes.ClickHouseBatchingSink.scenarios[0].schedule_replay_command).toBe(
      SCHEDULE_LINE,
    );
  });

  it('a report without a stored counterexample gives the seed line only', () => {
    const run = violated(undefined);
    expect(reportMarkdown(run)).not.toContain('The same input');
    expect(JSON.parse(summaryJson(run)).classes.ClickHouseBatchingSink.scenarios[0].schedule_replay_command).toBeNull();
  });
});
