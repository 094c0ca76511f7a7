/**
 * The `SETTINGS` clause of a table's `engine_full` (`... ORDER BY id SETTINGS
 * replicated_deduplication_window_seconds = 60, index_granularity = 8192`) as name -> value text,
 * quotes removed. The native client of the original cannot read these per-table overrides; over
 * HTTP `system.tables.engine_full` has them.
 */
export function tableSettingsOf(engineFull: string): Map<string, string> {
  const settings = new Map<string, string>();
  const start = topLevelKeyword(engineFull, 'SETTINGS');
  if (start === undefined) return settings;
  for (const assignment of splitTopLevel(engineFull.slice(start + 'SETTINGS'.length), ',')) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/s.exec(assignment);
    if (!match) continue;
    const value = match[2] ?? '';
    settings.set(match[1] ?? '', /^'.*'$/s.test(value) ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value);
  }
  return settings;
}

/** Position of a keyword outside quotes and parentheses, so a TTL or codec expression cannot fake it. */
function topLevelKeyword(text: string, keyword: string): number | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? '';
    if (quote !== undefined) {
      if (char === '\\') i += 1;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === "'" || char === '`' || char === '"') quote = char;
    else if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (
      depth === 0 &&
      text.startsWith(keyword, i) &&
      /\W/.test(text[i - 1] ?? ' ') &&
      /\W/.test(text[i + keyword.length] ?? ' ')
    )
      return i;
  }
  return undefined;
}

function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = '';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? '';
    if (quote !== undefined) {
      current += char;
      if (char === '\\') current += text[++i] ?? '';
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === "'" || char === '`' || char === '"') quote = char;
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === separator && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}
