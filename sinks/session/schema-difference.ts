import type { TableColumn } from '../types/schema-check.ts';

export interface LabelledSchema {
  readonly label: string;
  readonly columns: readonly TableColumn[];
}

/** `name Type DEFAULT expr`, the parts the seed compares: (name, type, default_kind, default_expression). */
export function formatColumn(column: TableColumn): string {
  const kind =
    column.default_kind === ''
      ? ''
      : ` ${column.default_kind}${column.default_expression === '' ? '' : ` ${column.default_expression}`}`;
  return `\`${column.name}\` ${column.type}${kind}`;
}

/**
 * The first difference between two full ordered schemas, or undefined when they are equal. The
 * position matters: the same columns in another order are a different schema.
 */
export function describeSchemaDifference(left: LabelledSchema, right: LabelledSchema): string | undefined {
  const length = Math.max(left.columns.length, right.columns.length);
  for (let i = 0; i < length; i += 1) {
    const a = left.columns[i];
    const b = right.columns[i];
    const shownA = a === undefined ? 'no column' : formatColumn(a);
    const shownB = b === undefined ? 'no column' : formatColumn(b);
    if (shownA !== shownB) return `column ${i + 1}: ${left.label} has ${shownA}, ${right.label} has ${shownB}`;
  }
  return undefined;
}
