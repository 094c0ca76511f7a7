import type { StagedLoad, StagedRow } from '../../sinks/index.ts';

/** The production tables of a run, in publication order (a run uses the first one to three). */
export const PRODUCTION_TABLES = ['events_a', 'events_b', 'events_c'] as const;

/** What a load looks like: its rows per table, in the batches they arrive in. */
export interface LoadShape {
  readonly tables: number;
  readonly batches: number;
  readonly rowsPerBatch: number;
}

/**
 * A row's payload, a pure function of where it belongs: multibyte text, a quote, a backslash and
 * a tab, so a publication that re-encodes a row (an `INSERT … SELECT` through a text format) shows.
 */
export const payloadOf = (table: string, load: number, id: number): string =>
  `${table}·${load}·${id} «ж» 'q' \\ \t${'x'.repeat(id % 7)}`;

export const tablesOf = (shape: LoadShape): readonly string[] => PRODUCTION_TABLES.slice(0, shape.tables);

/** Rows each table owes of one load. */
export const rowsPerTable = (shape: LoadShape): number => shape.batches * shape.rowsPerBatch;

/** Load `load` (its partition), its rows in `shape`'s batches, the same for every table but its payload. */
export function sourceLoad(load: number, shape: LoadShape): StagedLoad {
  return {
    load,
    tables: tablesOf(shape).map((table) => ({
      table,
      batches: Array.from({ length: shape.batches }, (_, batch) =>
        Array.from({ length: shape.rowsPerBatch }, (_, k): StagedRow => {
          const id = batch * shape.rowsPerBatch + k + 1;
          return { load, id, payload: payloadOf(table, load, id) };
        }),
      ),
    })),
  };
}
