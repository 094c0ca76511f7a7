/**
 * The deterministic source the Kafka engine class consumes: message `id` (1-based) carries one
 * row whose every value is a function of the id, chosen to stress the JSONEachRow path
 * (64-bit extremes, multibyte and escaped text, nulls, sub-second times in a zone far from UTC,
 * empty and filled arrays). The checker compares each stored row with `expectedRow(id)`, column by
 * column, as ClickHouse's `toString` prints it.
 */

/** The target's columns, in the order the DDL declares and the checker reads them. */
export const SOURCE_COLUMNS = [
  { name: 'id', type: 'UInt64' },
  { name: 'seq', type: 'UInt32' },
  { name: 'text', type: 'String' },
  { name: 'wide', type: 'Int64' },
  { name: 'ratio', type: 'Float64' },
  { name: 'maybe', type: 'Nullable(Int32)' },
  { name: 'tags', type: 'Array(UInt16)' },
  { name: 'at', type: "DateTime64(3, 'Asia/Kathmandu')" },
] as const;

export type SourceColumn = (typeof SOURCE_COLUMNS)[number]['name'];

const TEXTS = ['plain', 'ünïcödé €', 'quote " and \\ backslash', 'tab\tand\nnewline', '𝄞 four bytes', ''];
const INT64_EXTREMES = ['-9223372036854775808', '9223372036854775807', '0', '-1'];

/** Each column's value for message `id`, as ClickHouse's `toString` prints it (`NULL` for a null). */
export function expectedRow(id: number): Readonly<Record<SourceColumn, string>> {
  const millis = String(id % 1000).padStart(3, '0');
  const second = String(id % 60).padStart(2, '0');
  const minute = String(Math.floor(id / 60) % 60).padStart(2, '0');
  return {
    id: String(id),
    seq: String((id * 2654435761) % 4294967296),
    text: `${TEXTS[id % TEXTS.length] ?? ''}#${id}`,
    wide: id % 5 === 4 ? String(id) : (INT64_EXTREMES[id % 5] ?? '0'),
    ratio: String(((id % 64) - 32) / 8),
    maybe: id % 3 === 0 ? 'NULL' : String(id % 3 === 1 ? -2147483648 + id : 2147483647 - id),
    tags: `[${Array.from({ length: id % 4 }, (_, k) => (id + k * 16384) % 65536).join(',')}]`,
    at: `2026-12-03 ${String(id % 24).padStart(2, '0')}:${minute}:${second}.${millis}`,
  };
}

/**
 * The Kafka message value of `id`: one JSONEachRow object. 64-bit integers are written as bare
 * digits (JSON numbers JavaScript could not hold), which ClickHouse parses exactly.
 */
export function messageValue(id: number): string {
  const row = expectedRow(id);
  const fields = [
    `"id":${row.id}`,
    `"seq":${row.seq}`,
    `"text":${JSON.stringify(row.text)}`,
    `"wide":${row.wide}`,
    `"ratio":${row.ratio}`,
    `"maybe":${row.maybe === 'NULL' ? 'null' : row.maybe}`,
    `"tags":${row.tags}`,
    `"at":${JSON.stringify(row.at)}`,
  ];
  return `{${fields.join(',')}}`;
}

/** A message the format cannot parse: what `kafka_skip_broken_messages` and `kafka_handle_error_mode` are about. */
export const brokenValue = (id: number): string => `{"id":${id},"text":"cut off`;
