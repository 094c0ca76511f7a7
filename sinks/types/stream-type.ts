/** The stream (YT) column types the sink maps onto ClickHouse. */
export const STREAM_BASE_TYPES = [
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'float',
  'double',
  'string',
  'utf8',
  'boolean',
  'date',
  'datetime',
] as const;

export type StreamBaseType = (typeof STREAM_BASE_TYPES)[number];

export interface StreamType {
  readonly base: StreamBaseType;
  readonly optional: boolean;
}

/** A stream column as the pipeline declares it. `required: false` is the same as `optional<T>`. */
export interface StreamColumn {
  readonly name: string;
  readonly type: string;
  readonly required?: boolean;
}

export type StreamTypeParse =
  { readonly ok: true; readonly type: StreamType } | { readonly ok: false; readonly reason: string };

/** Parses `int64`, `optional<int64>` etc. and folds in `required`; refuses contradictions. */
export function parseStreamType(column: StreamColumn): StreamTypeParse {
  const text = column.type.replace(/\s+/g, '');
  const wrapped = /^optional<(.*)>$/.exec(text);
  const base = wrapped ? (wrapped[1] ?? '') : text;
  if (!(STREAM_BASE_TYPES as readonly string[]).includes(base)) {
    return {
      ok: false,
      reason: `stream type '${column.type}' is not supported; use one of ${STREAM_BASE_TYPES.join(', ')}, optionally as optional<T>`,
    };
  }
  if (wrapped && column.required === true) {
    return { ok: false, reason: `stream type '${column.type}' is optional but the column says required: true` };
  }
  return { ok: true, type: { base: base as StreamBaseType, optional: wrapped !== null || column.required === false } };
}

export function formatStreamType(type: StreamType): string {
  return type.optional ? `optional<${type.base}>` : type.base;
}
