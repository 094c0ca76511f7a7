import { describe, expect, it } from 'vitest';
import { formatStreamType, parseStreamType } from './stream-type.ts';

describe('parseStreamType', () => {
  it('reads plain and optional types', () => {
    expect(parseStreamType({ name: 'x', type: 'int64' })).toEqual({
      ok: true,
      type: { base: 'int64', optional: false },
    });
    expect(parseStreamType({ name: 'x', type: 'optional<utf8>' })).toEqual({
      ok: true,
      type: { base: 'utf8', optional: true },
    });
    expect(parseStreamType({ name: 'x', type: 'optional< double >' })).toEqual({
      ok: true,
      type: { base: 'double', optional: true },
    });
  });

  it('treats required: false as optional', () => {
    expect(parseStreamType({ name: 'x', type: 'uint8', required: false })).toEqual({
      ok: true,
      type: { base: 'uint8', optional: true },
    });
    expect(parseStreamType({ name: 'x', type: 'uint8', required: true })).toEqual({
      ok: true,
      type: { base: 'uint8', optional: false },
    });
  });

  it.each(['decimal(10,2)', 'list<int64>', 'optional<optional<int64>>', 'timestamp', 'yson', 'Int64'])(
    'refuses %s',
    (type) => {
      const result = parseStreamType({ name: 'x', type });
      expect(result.ok).toBe(false);
    },
  );

  it('refuses optional<T> marked required', () => {
    const result = parseStreamType({ name: 'x', type: 'optional<int8>', required: true });
    expect(result.ok || result.reason).toMatch(/optional but the column says required/);
  });

  it('formats', () => {
    expect(formatStreamType({ base: 'int8', optional: true })).toBe('optional<int8>');
  });
});
