/** The ClickHouse column types the sink can write (section 5); everything else is `unsupported`. */
export type ClickHouseScalar =
  | 'Int8'
  | 'Int16'
  | 'Int32'
  | 'Int64'
  | 'UInt8'
  | 'UInt16'
  | 'UInt32'
  | 'UInt64'
  | 'Float32'
  | 'Float64'
  | 'String'
  | 'Bool'
  | 'Date';

export type ClickHouseType =
  | { readonly kind: 'scalar'; readonly name: ClickHouseScalar }
  | { readonly kind: 'fixed_string'; readonly length: number }
  /** DateTime or DateTime('tz'): the stored value is Unix seconds whatever the display zone. */
  | { readonly kind: 'datetime'; readonly timezone?: string }
  | { readonly kind: 'nullable'; readonly inner: ClickHouseType }
  | { readonly kind: 'low_cardinality'; readonly inner: ClickHouseType }
  | { readonly kind: 'unsupported'; readonly text: string };

const SCALARS = new Set<string>([
  'Int8',
  'Int16',
  'Int32',
  'Int64',
  'UInt8',
  'UInt16',
  'UInt32',
  'UInt64',
  'Float32',
  'Float64',
  'String',
  'Bool',
  'Date',
]);

/**
 * Parses a type string as `system.columns.type` shows it. Unknown, composite or malformed types
 * come back as `unsupported` rather than failing: such a column is fine as long as the stream
 * does not write it.
 */
export function parseClickHouseType(text: string): ClickHouseType {
  const unsupported = { kind: 'unsupported', text } as const;
  const parts = splitTypeExpression(text);
  if (!parts) return unsupported;
  const { name, args } = parts;
  if (args === undefined) {
    if (SCALARS.has(name)) return { kind: 'scalar', name: name as ClickHouseScalar };
    return name === 'DateTime' ? { kind: 'datetime' } : unsupported;
  }
  const [first, ...others] = args;
  if (first === undefined || others.length > 0) return unsupported;
  if (name === 'FixedString')
    return /^[1-9]\d*$/.test(first) ? { kind: 'fixed_string', length: Number(first) } : unsupported;
  if (name === 'DateTime') {
    const zone = /^'((?:[^'\\]|\\.)*)'$/.exec(first);
    return zone ? { kind: 'datetime', timezone: zone[1] ?? '' } : unsupported;
  }
  if (name === 'Nullable') {
    const inner = parseClickHouseType(first);
    return inner.kind === 'scalar' || inner.kind === 'fixed_string' || inner.kind === 'datetime'
      ? { kind: 'nullable', inner }
      : unsupported;
  }
  if (name === 'LowCardinality') {
    const inner = parseClickHouseType(first);
    const stringy = (t: ClickHouseType) => (t.kind === 'scalar' && t.name === 'String') || t.kind === 'fixed_string';
    return stringy(inner) || (inner.kind === 'nullable' && stringy(inner.inner))
      ? { kind: 'low_cardinality', inner }
      : unsupported;
  }
  return unsupported;
}

/** The ClickHouse spelling, for messages: round-trips what `parseClickHouseType` accepts. */
export function formatClickHouseType(type: ClickHouseType): string {
  switch (type.kind) {
    case 'scalar':
      return type.name;
    case 'fixed_string':
      return `FixedString(${type.length})`;
    case 'datetime':
      return type.timezone === undefined ? 'DateTime' : `DateTime('${type.timezone}')`;
    case 'nullable':
      return `Nullable(${formatClickHouseType(type.inner)})`;
    case 'low_cardinality':
      return `LowCardinality(${formatClickHouseType(type.inner)})`;
    case 'unsupported':
      return type.text;
  }
}

/** `Name` or `Name(arg, ...)` with arguments split at top-level commas, quotes respected. */
function splitTypeExpression(text: string): { name: string; args: string[] | undefined } | undefined {
  const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(.*?)\s*$/s.exec(text);
  if (!match) return undefined;
  const name = match[1] ?? '';
  const rest = match[2] ?? '';
  if (rest === '') return { name, args: undefined };
  if (!rest.startsWith('(') || !rest.endsWith(')')) return undefined;
  const args: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (let i = 1; i < rest.length - 1; i += 1) {
    const char = rest[i] ?? '';
    if (quoted) {
      current += char;
      if (char === '\\') current += rest[++i] ?? '';
      else if (char === "'") quoted = false;
      continue;
    }
    if (char === "'") quoted = true;
    if (char === '(') depth += 1;
    if (char === ')' && --depth < 0) return undefined;
    if (char === ',' && depth === 0) {
      args.push(current.trim());
      current = '';
    } else {
      current += char;
    }
  }
  if (depth !== 0 || quoted) return undefined;
  args.push(current.trim());
  return { name, args };
}
