/**
 * Durations as the original's TDuration parameters accept them, normalized to whole
 * milliseconds: a JSON integer is milliseconds (how YT reads an integer TDuration); a string is a
 * decimal number with a unit `ms`, `s`, `m`, `h` or `d` (`500ms`, `1.5s`, `1m`, `1d`). A string
 * without a unit is refused: the original would read it as seconds and JSON numbers as
 * milliseconds, and a spec should not depend on which.
 */
export type DurationParse =
  { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly reason: string };

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const durationText = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

export function parseDuration(value: unknown): DurationParse {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0
      ? { ok: true, ms: value }
      : { ok: false, reason: `${value} is not a whole non-negative number of milliseconds` };
  }
  if (typeof value !== 'string')
    return { ok: false, reason: `expected a duration like "1s" or a number of milliseconds, got ${typeof value}` };
  const match = durationText.exec(value.trim());
  if (!match)
    return {
      ok: false,
      reason: `"${value}" is not a duration: write a number and a unit ms, s, m, h or d (e.g. "500ms", "1m", "1d")`,
    };
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? Number.NaN);
  // Decimal fractions of seconds are inexact in binary; accept what rounds to a whole ms.
  const rounded = Math.round(ms);
  if (Math.abs(ms - rounded) > 1e-6 || !Number.isSafeInteger(rounded)) {
    return { ok: false, reason: `"${value}" is not a whole number of milliseconds` };
  }
  return { ok: true, ms: rounded };
}

/** `90000` -> `1m30s`, for messages. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0ms';
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of Object.entries(UNIT_MS).reverse()) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('');
}
