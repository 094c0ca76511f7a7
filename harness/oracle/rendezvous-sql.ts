/**
 * A second implementation of the sinks' rendezvous routing, in ClickHouse SQL over ClickHouse's
 * own `xxHash64`: the placement oracle must not share code with `sinks/routing`, or a routing bug
 * in both would pass unseen. It restates the documented scheme (sinks/README.md, seed 000):
 * - the routing key is the message id's bytes, or, with `sharding_key_columns`, the count of
 *   columns and then per column one length-prefixed field: `n` for a null, `s<text>` for a
 *   String, `i<decimal>` for an integer of any width, `b0`/`b1` for a Bool (types whose stored
 *   value cannot tell how the stream gave it, a Date with its milliseconds, are refused here
 *   rather than guessed);
 * - a shard's score is `xxHash64(len(key) ‖ key ‖ len(name) ‖ name)`, lengths 4-byte big-endian;
 * - the highest score wins, a tie goes to the smaller name.
 */
export interface RoutingLayout {
  readonly shards: readonly string[];
  readonly keyColumns: readonly string[];
}

/** One identifier per layout (shard names sorted, key columns in order). */
export const layoutKey = (layout: RoutingLayout): string =>
  `${[...layout.shards].sort().join(',')}|${layout.keyColumns.join(',')}`;

const SAFE_NAME = /^[A-Za-z0-9_-]+$/;
const SAFE_COLUMN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Four big-endian bytes of a constant, as a SQL string literal. */
const be32Literal = (n: number): string => `unhex('${n.toString(16).padStart(8, '0')}')`;
/** Four big-endian bytes of a UInt32 expression. */
const be32 = (expression: string): string => `unhex(leftPad(hex(toUInt32(${expression})), 8, '0'))`;

/** A key column's ClickHouse type by name; undefined: String. */
export type KeyColumnType = (column: string) => string | undefined;

const INTEGER = /^U?Int(8|16|32|64)$/;

/** One key column's tagged field (without its length), by its type. */
function keyFieldSql(column: string, type: string): string {
  const nullable = /^Nullable\((.*)\)$/.exec(type);
  if (nullable !== null)
    return `if(isNull(${column}), 'n', ${keyFieldSql(`assumeNotNull(${column})`, nullable[1] ?? '')})`;
  if (type === 'String' || type === 'LowCardinality(String)') return `concat('s', ${column})`;
  if (INTEGER.test(type)) return `concat('i', toString(${column}))`;
  if (type === 'Bool') return `if(${column}, 'b1', 'b0')`;
  throw new Error(`a sharding key column of type ${type} has no routing the oracle can restate from the stored value`);
}

/** The SQL expression of the routing key's bytes over the row's columns (`id` and the key columns). */
function routingKeySql(keyColumns: readonly string[], typeOf: KeyColumnType): string {
  if (keyColumns.length === 0) return 'id';
  for (const column of keyColumns)
    if (!SAFE_COLUMN.test(column)) throw new Error(`not a plain column name: '${column}'`);
  const fields = keyColumns.map((column) => {
    const field = keyFieldSql(column, typeOf(column) ?? 'String');
    return `${be32(`length(${field})`)}, ${field}`;
  });
  return `concat(${be32Literal(keyColumns.length)}, ${fields.join(', ')})`;
}

/** The SQL expression of the shard name the layout routes a row to. */
export function rendezvousSql(layout: RoutingLayout, typeOf: KeyColumnType = () => undefined): string {
  const names = [...layout.shards].sort();
  if (names.length === 0) throw new Error('a routing layout needs at least one shard');
  for (const name of names) if (!SAFE_NAME.test(name)) throw new Error(`not a shard name: '${name}'`);
  const key = routingKeySql(layout.keyColumns, typeOf);
  const scores = names.map(
    (name) => `xxHash64(concat(${be32(`length(${key})`)}, ${key}, ${be32Literal(name.length)}, '${name}'))`,
  );
  // indexOf finds the first maximum, and the names are sorted: a tie goes to the smaller name.
  return `[${names.map((name) => `'${name}'`).join(', ')}][indexOf([${scores.join(', ')}], arrayMax([${scores.join(', ')}]))]`;
}
