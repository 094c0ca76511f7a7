/**
 * The most bytes of values one query parameter carries: ClickHouse refuses a parameter over
 * `http_max_field_value_size` (128 KiB by default) with "HTML Form Exception: Field value too
 * long"; half of it leaves room for the escapes a value may need. Met in a `full` run: an
 * at-most-once run in queue mode sent over 2,000 INSERTs, one per message, and their query ids
 * no longer fit one parameter.
 */
export const PARAMETER_BYTES = 64 * 1024;

const BRACKETS = 2;

/**
 * The values in their order, in consecutive groups of at most `maxBytes` as an `Array(String)`
 * parameter spells them (its brackets, then each value's bytes, its quotes and a comma); a value
 * longer than that is a group alone.
 */
export function chunksOfParameterSize(values: readonly string[], maxBytes = PARAMETER_BYTES): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let bytes = BRACKETS;
  for (const value of values) {
    const size = Buffer.byteLength(value) + 3;
    if (current.length > 0 && bytes + size > maxBytes) {
      chunks.push(current);
      current = [];
      bytes = BRACKETS;
    }
    current.push(value);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
