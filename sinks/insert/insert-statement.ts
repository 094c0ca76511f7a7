/** A ClickHouse identifier in backticks, so any table or column name is safe in the statement. */
export function quoteIdentifier(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

/** `INSERT INTO `db`.`table` (`a`, `b`) FORMAT RowBinary`: only the columns the stream writes. */
export function insertStatement(database: string, table: string, columns: readonly string[]): string {
  return `INSERT INTO ${quoteIdentifier(database)}.${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(', ')}) FORMAT RowBinary`;
}
