import { describe, expect, it } from 'vitest';
import { brokenValue, expectedRow, messageValue, SOURCE_COLUMNS } from './source.ts';

describe('the Kafka engine source', () => {
  it('gives every column of the target a value, deterministic per id', () => {
    for (const id of [1, 2, 3, 4, 5, 997, 4096]) {
      expect(Object.keys(expectedRow(id))).toEqual(SOURCE_COLUMNS.map((column) => column.name));
      expect(expectedRow(id)).toEqual(expectedRow(id));
    }
    expect(expectedRow(1)).not.toEqual(expectedRow(2));
  });

  it('writes each message as one JSON object whose text fields round-trip', () => {
    for (const id of [1, 2, 3, 4, 5, 6, 60, 3601]) {
      const parsed = JSON.parse(messageValue(id)) as Record<string, unknown>;
      const row = expectedRow(id);
      expect(parsed['text']).toBe(row.text);
      expect(parsed['at']).toBe(row.at);
      expect(parsed['maybe'] === null ? 'NULL' : String(parsed['maybe'])).toBe(row.maybe);
    }
    // 64-bit extremes travel as bare digits, not as rounded JavaScript numbers.
    expect(messageValue(1)).toContain('"wide":9223372036854775807');
    expect(messageValue(5)).toContain('"wide":-9223372036854775808');
  });

  it('has broken messages no JSON parser accepts', () => {
    expect(() => JSON.parse(brokenValue(7))).toThrow();
  });
});
