import type { DeliveryGuarantee } from '../../sinks/sink-classes.ts';
import type { ConfigurationResult } from '../run-result.ts';

const owedCell = (owed: DeliveryGuarantee, guarantee: DeliveryGuarantee) =>
  owed === guarantee ? owed : `${owed} (degraded from ${guarantee})`;

const heldCell = (violations: number) => (violations === 0 ? 'held' : `violated in ${violations}`);

/**
 * The configuration matrix's cells, shared by report.md and report.html: configuration, guarantee
 * owed, runs, whether it held, lost, duplicated, dedup hits. A configuration with a materialized
 * view gets a second row for the view's table, judged by what the class owes there.
 */
export function configurationRows(rows: readonly ConfigurationResult[], guarantee: DeliveryGuarantee): string[][] {
  return rows.flatMap((row) => [
    [
      row.configuration,
      owedCell(row.owed, guarantee),
      String(row.runs),
      heldCell(row.violations),
      String(row.lost),
      String(row.duplicated),
      String(row.dedupHits),
    ],
    ...(row.view === undefined
      ? []
      : [
          [
            '↳ the materialized view’s table',
            owedCell(row.view.owed, guarantee),
            String(row.runs),
            heldCell(row.view.violations),
            String(row.view.lost),
            String(row.view.duplicated),
            '—',
          ],
        ]),
  ]);
}
