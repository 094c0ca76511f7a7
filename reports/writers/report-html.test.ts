import { describe, expect, it } from 'vitest';
import { jobReportOf, scenarioReportOf } from '../results/test-support.ts';
import { reportHtml } from './report-html.ts';

describe('report.html: a class without an INSERT timeline', () => {
  it("says the Kafka engine's rows were written by ClickHouse's consumers, not that nothing was recorded", () => {
    const html = reportHtml(
      jobReportOf(
        [scenarioReportOf({ sinkClass: 'ClickHouseKafkaEngine', name: 'kafka-rebalance' })],
        {},
        'at-least-once',
      ),
      [],
    );
    expect(html).toContain('no INSERT timeline: ClickHouse&#39;s own consumers wrote this class&#39;s rows');
    expect(html).not.toContain('no history was recorded');
    // No sink to watch after a heal: no row in the recovery table.
    const recovery = html.split('heals watched')[1]?.split('</table>')[0] ?? '';
    expect(recovery).not.toContain('ClickHouseKafkaEngine');
  });
});
