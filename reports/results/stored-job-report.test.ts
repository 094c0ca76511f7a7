import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJobReport, RUN_RESULT_VERSION } from './stored-job-report.ts';
import { storedOneScenarioJob } from './test-support.ts';
import { readTrendLines } from './trend-line.ts';

const dir = mkdtempSync(join(tmpdir(), 'stored-job-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stored job report, edited as JSON, written to a file; the file's path. */
function stored(edit: (json: Record<string, any>) => void = () => undefined): string {
  const json = JSON.parse(storedOneScenarioJob('ClickHouseBatchingSink', 'unknown-outcome', 'pass'));
  edit(json);
  const file = join(dir, `run-result-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(json));
  return file;
}

describe('run-result.json read back', () => {
  it('reads what the harness wrote, without its version', () => {
    const file = stored();
    const report = readJobReport(file);
    const { version, ...written } = JSON.parse(readFileSync(file, 'utf8'));
    expect(version).toBe(RUN_RESULT_VERSION);
    expect(report).toEqual(written);
  });

  it('reads a job with the Kafka engine class (what npm run check and chaos:merge read back)', () => {
    const file = join(dir, 'run-result-engine.json');
    writeFileSync(file, storedOneScenarioJob('ClickHouseKafkaEngine', 'kafka-rebalance', 'pass'));
    expect(Object.keys(readJobReport(file).classes)).toEqual(['ClickHouseKafkaEngine']);
  });

  it.each<[string, (json: Record<string, any>) => void, string]>([
    [
      'an unversioned (older) file',
      (json) => delete json.version,
      'version 1 (unversioned), this harness reads version 3',
    ],
    ['a newer file', (json) => (json.version = 4), 'version 4, this harness reads version 3'],
  ])('refuses %s by its version', (_label, edit, said) => {
    const file = stored(edit);
    expect(() => readJobReport(file)).toThrow(`${file}: ${said}`);
  });

  it.each<[string, (json: Record<string, any>) => void, string]>([
    [
      'a count that is not a number',
      (json) => (json.classes.ClickHouseBatchingSink.scenarios[0].tally.counts.lost = '3'),
      'classes.ClickHouseBatchingSink.scenarios[0].tally.counts.lost should be a number, got "3"',
    ],
    [
      'an unknown verdict',
      (json) => (json.classes.ClickHouseBatchingSink.verdict = 'ok'),
      'classes.ClickHouseBatchingSink.verdict should be one of pass, violation',
    ],
    ['no selection', (json) => delete json.selection, 'selection should be an object, got nothing'],
    [
      'a scenario without its tally',
      (json) => delete json.classes.ClickHouseBatchingSink.scenarios[0].tally,
      'classes.ClickHouseBatchingSink.scenarios[0].tally should be an object, got nothing',
    ],
  ])('refuses %s, naming the file and the field', (_label, edit, said) => {
    const file = stored(edit);
    expect(() => readJobReport(file)).toThrow(`${file}: ${said}`);
  });
});

describe('soak-trend.jsonl read back', () => {
  const line = {
    version: 1,
    iteration: 1,
    run_id: 'r1',
    seed: 7,
    verdict: 'pass',
    duration_ms: 1000,
    rss_mib: 100,
    cluster_peak_rss_mib: null,
    reproduced: null,
    classes: { ClickHouseBatchingSink: { verdict: 'pass', insert_latency_ms: null, rows_per_second: 12 } },
  };

  it('reads lines of its version', () => {
    const file = join(dir, 'trend-ok.jsonl');
    writeFileSync(file, `${JSON.stringify(line)}\n`);
    expect(readTrendLines(file)).toEqual([line]);
  });

  it('refuses an unversioned line, naming the file and the line', () => {
    const file = join(dir, 'trend-old.jsonl');
    const { version: _, ...old } = line;
    writeFileSync(file, `${JSON.stringify(line)}\n${JSON.stringify(old)}\n`);
    expect(() => readTrendLines(file)).toThrow(`${file}:2: version 1 (unversioned), this harness reads version 1`);
  });
});
