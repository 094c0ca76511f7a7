/**
 * Text from outside the harness (server errors, notes that quote them, replica names from a
 * cluster file) as Markdown that renders as what it is: one line, never a heading, a table row,
 * a link or HTML. report.md is a CI job summary, so whatever the server says must not forge it.
 */

const ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Line breaks and other control characters as visible escapes (`\n`, `\u001b`): one line that says what was there. */
export function oneLine(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (character) => ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * One inline code span: nothing inside it is Markdown or HTML. Its fence is longer than any run of
 * backticks in the text, and padded when the text starts or ends with one.
 */
export function codeSpan(text: string): string {
  const line = oneLine(text);
  if (line === '') return '(empty)';
  const longest = Math.max(0, ...[...line.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

/** A table cell: one line, its `|` escaped (GFM splits cells on it even inside a code span), no HTML. */
export function tableCell(text: string): string {
  return oneLine(text.replace(/\\/g, '\\\\')).replace(/\|/g, '\\|').replace(/</g, '&lt;');
}

/** A fenced block of lines, each one line, fenced longer than any backtick run inside (a line of ``` cannot close it). */
export function fencedBlock(lines: readonly string[], info = ''): string[] {
  const body = lines.map(oneLine);
  const longest = Math.max(2, ...body.flatMap((line) => [...line.matchAll(/`+/g)].map((match) => match[0].length)));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${info}`, ...body, fence];
}
