import { describe, expect, it } from 'vitest';
import { SINK_CLASS_NAMES } from '../../sinks/index.ts';
import { CATALOGUE } from '../scenarios/catalogue.ts';
import { runDatabaseName } from './run-database.ts';

describe('runDatabaseName', () => {
  it('never gives two runs one name, even with the same job tag, class, scenario and index', () => {
    const names = new Set(
      Array.from({ length: 1000 }, () =>
        runDatabaseName('chaos_20260101_120000_ab12', 'ClickHouseBatchingSink', 'unknown-outcome', 0),
      ),
    );
    expect(names.size).toBe(1000);
  });

  it('is a plain identifier that starts with the job tag and names the class, scenario and run', () => {
    const name = runDatabaseName('chaos_20260101_120000_ab12', 'ClickHouseBatchingSink', 'unknown-outcome', 3);
    expect(name).toMatch(/^chaos_20260101_120000_ab12_[0-9a-f]{12}_clickhousebatchingsink_unknown_outcome_3$/);
  });

  it('stays well inside a file name (ClickHouse keeps one per database) for every class and scenario', () => {
    const longest = Math.max(
      ...SINK_CLASS_NAMES.flatMap((sinkClass) =>
        CATALOGUE.map(
          (scenario) => runDatabaseName('chaos_20260101_120000_ab12', sinkClass, scenario.name, 999).length,
        ),
      ),
    );
    expect(longest).toBeLessThan(200);
  });
});
