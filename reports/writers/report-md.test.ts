import { describe, expect, it } from 'vitest';
import { NO_TALLY, type ScenarioReport } from '../results/index.ts';
import { jobReportOf, scenarioReportOf } from '../results/test-support.ts';
import { reportMarkdown } from './report-md.ts';
import { summaryJson } from './summary-json.ts';

const scenario = (name: string, boundaries: Record<string, number>): ScenarioReport =>
  scenarioReportOf({ name, tally: { ...NO_TALLY, runs: 1, boundaries } });

describe('report.md: the spec boundaries run', () => {
  it('lists, per class and scenario, each boundary the sink wrote under with its writes', () => {
    const md = reportMarkdown(
      jobReportOf([
        scenario('server-errors', { host: 4, 'max_insert_attempts = 1': 2 }),
        scenario('network-degradation', {}),
      ]),
    );
    const section = md.split('### Spec boundaries run')[1]?.split('###')[0] ?? '';
    expect(section).toContain('| ClickHouseBatchingSink | server-errors | host (4) · max_insert_attempts = 1 (2) |');
    // A scenario whose sink wrote under no boundary has no row.
    expect(section).not.toContain('network-degradation');
  });

  it('has no such section when no scenario ran a boundary', () => {
    expect(reportMarkdown(jobReportOf([scenario('network-degradation', {})]))).not.toContain('Spec boundaries');
  });
});

describe('report.md: the scenarios table', () => {
  it('names the cluster shape each scenario ran on, and an attached cluster as such', () => {
    const md = reportMarkdown(
      jobReportOf([
        { ...scenario('server-errors', {}), cluster: '3x1 (a, north-eu, b_2)' },
        scenario('network-degradation', {}),
      ]),
    );
    const section = md.split('### Scenarios')[1]?.split('###')[0] ?? '';
    expect(section).toMatch(/\| ClickHouseBatchingSink \| server-errors \| 3x1 \(a, north-eu, b_2\) \|/);
    expect(section).toMatch(/\| ClickHouseBatchingSink \| network-degradation \| attached \|/);
  });
});

describe('report.md: the run line', () => {
  it('names the fault proxy of a cluster the job started, and none for an attached one', () => {
    const run = (faultProxy: string | null) =>
      reportMarkdown(jobReportOf([scenario('network-degradation', {})], { faultProxy })).split('\n')[4] ?? '';
    expect(run('toxiproxy')).toContain('· backend `embedded` · fault proxy the real Toxiproxy ·');
    expect(run('builtin')).toContain('· fault proxy ours (chaos/toxiproxy) ·');
    expect(run(null)).not.toContain('fault proxy');
  });
});

describe('report.md: which path, which guarantee', () => {
  it('puts the sinks and the Kafka engine side by side, with the kinds of fault each met', () => {
    const sink = jobReportOf([
      scenarioReportOf({
        tally: {
          ...NO_TALLY,
          counts: { ...NO_TALLY.counts, recovered: 40 },
          faults: { reset_peer: 2, keeper_pause: 1 },
        },
      }),
    ]);
    const engine = jobReportOf(
      [
        scenarioReportOf({
          sinkClass: 'ClickHouseKafkaEngine',
          name: 'kafka-broker-process',
          tally: {
            ...NO_TALLY,
            counts: { ...NO_TALLY.counts, duplicated: 7, recovered: 90 },
            faults: { broker_kill: 1, too_many_parts: 1 },
          },
        }),
      ],
      {},
      'at-least-once',
    );
    const md = reportMarkdown({ ...sink, classes: { ...sink.classes, ...engine.classes } });
    const section = md.split('### Which path, which guarantee')[1]?.split('###')[0] ?? '';
    expect(section).toContain(
      '| a Flow sink | ClickHouseBatchingSink | exactly-once | ✅ pass | 0 | 0 | 40 | Keeper, link |',
    );
    expect(section).toContain(
      "| ClickHouse's Kafka engine | ClickHouseKafkaEngine | at-least-once | ✅ pass | 0 | 7 | 90 | broker, server error |",
    );
  });

  it('says what readers saw while the staged loader published: per operation, fractured reads and the cross-table window', () => {
    const staged = jobReportOf([
      scenarioReportOf({
        sinkClass: 'StagedPartitionLoader',
        name: 'staged-keeper-cut',
        reads: [
          {
            operation: 'MOVE',
            reads: 420,
            failedReads: 3,
            fractured: 0,
            loads: 3,
            splitReads: 190,
            windowMs: { p50: 110, p95: 1888, max: 1888 },
          },
        ],
      }),
    ]);
    const md = reportMarkdown(staged);
    expect(md.split('### Which path, which guarantee')[1]).toContain(
      '| staged publication (seed 002) | StagedPartitionLoader |',
    );
    const section = md.split('### What readers saw')[1]?.split('###')[0] ?? '';
    expect(section).toContain(
      '| StagedPartitionLoader | staged-keeper-cut | MOVE | 420 (3) | 0 | — | 3 | 190 | 110 / 1888 / 1888 |',
    );
    expect(reportMarkdown(jobReportOf([scenarioReportOf()]))).not.toContain('### What readers saw');
  });

  it("says per sink class what its reader saw, summed over its scenarios, and summary.json carries each scenario's", () => {
    const dist = (stale: number, max: number) => ({
      operation: 'through _dist',
      reads: 10,
      failedReads: 1,
      fractured: 0,
      loads: 4,
      splitReads: 2,
      windowMs: { p50: 50, p95: max, max },
      stale,
      wentBack: 1,
    });
    const run = jobReportOf([
      scenarioReportOf({ sinkClass: 'ShardedClickHouseBatchingSink', name: 'keeper-faults', reads: [dist(3, 900)] }),
      scenarioReportOf({ sinkClass: 'ShardedClickHouseBatchingSink', name: 'sink-crash', reads: [dist(0, 300)] }),
    ]);
    const section = reportMarkdown(run).split("### What a reader saw of the sinks' tables")[1]?.split('###')[0] ?? '';
    expect(section).toContain('| ShardedClickHouseBatchingSink | through _dist | 20 (2) | 0 | 3 | 2 | 8 | 4 | 900 |');
    expect(reportMarkdown(run)).not.toContain('### What readers saw');
    const scenarios = JSON.parse(summaryJson(run)).classes.ShardedClickHouseBatchingSink.scenarios;
    expect(scenarios[0].reads).toEqual([
      {
        read: 'through _dist',
        reads: 10,
        failed_reads: 1,
        saw_part: 0,
        loads_over_several_tables_or_shards: 4,
        split_reads: 2,
        window_ms: { p50: 50, p95: 900, max: 900 },
        missed_acknowledged: 3,
        lacked_row_seen_before: 1,
      },
    ]);
  });
});

describe('report.md: where the time went', () => {
  it('splits each class into traffic, heal, check and the rest, and the job into pairs, cluster starts and the gaps', () => {
    const timed = (name: string, durationMs: number, phases: ScenarioReport['phases']): ScenarioReport => ({
      ...scenario(name, {}),
      durationMs,
      phases,
    });
    const md = reportMarkdown(
      jobReportOf(
        [
          timed('server-errors', 12_000, { trafficMs: 8_000, healMs: 2_000, checkMs: 1_000 }),
          timed('sink-crash', 4_000, { trafficMs: 3_000, healMs: 500, checkMs: 300 }),
        ],
        { durationMs: 20_000, clusterStartMs: 1_500 },
      ),
    );
    const section = md.split('### Where the time went')[1]?.split('###')[0] ?? '';
    expect(section).toContain(
      '20.0 s in all: 16.0 s in the class × scenario pairs, 1.5 s starting clusters, 2.5 s between them',
    );
    expect(section).toContain('| ClickHouseBatchingSink | 2 | 16.0 s | 11.0 s | 2.5 s | 1.3 s | 1.2 s |');
  });
});
