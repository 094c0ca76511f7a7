/**
 * One row as text, column by column in name order, every value as its decimal or string form:
 * the form in which a stored row (read back as JSON, 64-bit integers quoted) and the message the
 * source produced can be compared. Two rows with the same form hold the same values.
 */
export function rowForm(row: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(
    Object.keys(row)
      .sort()
      .map((column) => [column, String(row[column])]),
  );
}
