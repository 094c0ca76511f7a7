import { describe, expect, it } from 'vitest';
import { insertStatement, quoteIdentifier } from './insert-statement.ts';
import { insertQueryId } from './query-id.ts';

describe('insert statement and query id', () => {
  it('quotes every identifier', () => {
    expect(quoteIdentifier('we`ird\\name')).toBe('`we\\`ird\\\\name`');
    expect(insertStatement('db', 't_rep', ['id', 'v'])).toBe('INSERT INTO `db`.`t_rep` (`id`, `v`) FORMAT RowBinary');
  });

  it('makes readable, unique query ids', () => {
    const parts = { sink: 'my sink/1', partition: 3, batch: 17, shard: 's1', attempt: 2 };
    const id = insertQueryId(parts);
    expect(id).toMatch(/^my_sink_1\.p3\.b17\.s1\.a2\.[0-9a-f-]{36}$/);
    expect(insertQueryId(parts)).not.toBe(id);
    expect(insertQueryId({ ...parts, shard: null })).toContain('.u.a2.');
  });
});
