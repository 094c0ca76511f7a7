import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it.each([
    [1000, 1000],
    [0, 0],
    ['500ms', 500],
    ['1s', 1000],
    ['1.5s', 1500],
    ['0.1s', 100],
    ['1m', 60_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
  ])('reads %j as %d ms', (input, ms) => expect(parseDuration(input)).toEqual({ ok: true, ms }));

  it.each([
    ['10', /without|number and a unit/],
    ['1w', /unit ms, s, m, h or d/],
    ['-1s', /not a duration/],
    ['1 m', /not a duration/],
    ['0.5ms', /whole number of milliseconds/],
    [1.5, /whole non-negative number of milliseconds/],
    [-5, /whole non-negative/],
    [true, /got boolean/],
  ])('refuses %j', (input, reason) => {
    const result = parseDuration(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [1500, '1s500ms'],
    [90_000, '1m30s'],
    [86_400_000, '1d'],
  ])('formats %d as %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
