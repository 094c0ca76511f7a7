import { describe, expect, it } from 'vitest';
import { rendezvousSql } from './rendezvous-sql.ts';

// The SQL restatement of the sinks' routing key per key column type; that ClickHouse computes the
// same shard as the sinks is shown on the real cluster (`ground-truth.int.test.ts`, and every
// keyed chaos run's placement check).
const types: Record<string, string> = {
  k: 'String',
  n: 'Int64',
  u: 'UInt8',
  t: 'Nullable(String)',
  b: 'Bool',
  d: "DateTime('UTC')",
};
const sql = (keyColumns: string[]) => rendezvousSql({ shards: ['s1', 's2'], keyColumns }, (column) => types[column]);

describe('rendezvousSql', () => {
  it('tags each key column by its type, as the sinks’ canonical encoding does', () => {
    expect(sql(['k'])).toContain("concat('s', k)");
    expect(sql(['n', 'u'])).toContain("concat('i', toString(n))");
    expect(sql(['n', 'u'])).toContain("concat('i', toString(u))");
    expect(sql(['t'])).toContain("if(isNull(t), 'n', concat('s', assumeNotNull(t)))");
    expect(sql(['b'])).toContain("if(b, 'b1', 'b0')");
  });

  it('routes by the message id without key columns, and reads an unknown type as String', () => {
    expect(rendezvousSql({ shards: ['s1'], keyColumns: [] })).toContain('length(id)');
    expect(rendezvousSql({ shards: ['s1'], keyColumns: ['key'] })).toContain("concat('s', key)");
  });

  it('refuses a key column whose stored value cannot say how the stream gave it', () => {
    expect(() => sql(['d'])).toThrow(/DateTime\('UTC'\) has no routing the oracle can restate/);
  });
});
