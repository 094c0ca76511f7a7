import { describe, expect, it } from 'vitest';
import type { TableColumn } from '../types/schema-check.ts';
import { describeSchemaDifference } from './schema-difference.ts';

const col = (name: string, type: string, default_kind = '', default_expression = ''): TableColumn => ({
  name,
  type,
  default_kind,
  default_expression,
});

describe('describeSchemaDifference', () => {
  const base = [col('id', 'String'), col('v', 'UInt64', 'DEFAULT', '5')];

  it('finds none in equal schemas', () => {
    expect(describeSchemaDifference({ label: 'a', columns: base }, { label: 'b', columns: [...base] })).toBeUndefined();
  });

  it.each([
    [
      'type',
      [col('id', 'String'), col('v', 'UInt32', 'DEFAULT', '5')],
      'column 2: a has `v` UInt64 DEFAULT 5, b has `v` UInt32 DEFAULT 5',
    ],
    [
      'default expression',
      [col('id', 'String'), col('v', 'UInt64', 'DEFAULT', '6')],
      'column 2: a has `v` UInt64 DEFAULT 5, b has `v` UInt64 DEFAULT 6',
    ],
    [
      'default kind',
      [col('id', 'String'), col('v', 'UInt64', 'MATERIALIZED', '5')],
      'column 2: a has `v` UInt64 DEFAULT 5, b has `v` UInt64 MATERIALIZED 5',
    ],
    [
      'order',
      [base[1] as TableColumn, base[0] as TableColumn],
      'column 1: a has `id` String, b has `v` UInt64 DEFAULT 5',
    ],
    ['an extra column', [...base, col('x', 'UInt8')], 'column 3: a has no column, b has `x` UInt8'],
  ])('names the first difference in %s', (_, other, expected) => {
    expect(describeSchemaDifference({ label: 'a', columns: base }, { label: 'b', columns: other })).toBe(expected);
  });
});
