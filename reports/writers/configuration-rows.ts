import { ASYNC_INSERT_RUNS_SYNCHRONOUSLY } from '../../harness/cluster/index.ts';
import type { OwedGuarantee } from '../../properties/base/index.ts';
import type { DeliveryGuarantee } from '../../sinks/index.ts';
import type { ConfigurationRow } from '../results/index.ts';

const owedCell = (owed: OwedGuarantee, guarantee: DeliveryGuarantee) =>
  owed === guarantee ? owed : `${owed} (degraded from ${guarantee})`;

const heldCell = (violations: number) => (violations === 0 ? 'held' : `violated in ${violations}`);

/** A configuration that asked for async inserts, on a backend that ran them synchronously, says so. */
const configurationCell = (configuration: string, backendLimits: readonly string[]) =>
  configuration.endsWith('async_insert on') && backendLimits.includes(ASYNC_INSERT_RUNS_SYNCHRONOUSLY)
    ? `${configuration} (the engine ran it synchronously; the settings sent were judged)`
    : configuration;

/**
 * The configuration matrix's cells, shared by report.md and report.html: configuration, guarantee
 * owed, runs, whether it held, lost, duplicated, dedup hits. A configuration with a materialized
 * view gets a second row for the view's table, judged by what the class owes there.
 */
export function configurationRows(
  rows: readonly ConfigurationRow[],
  guarantee: DeliveryGuarantee,
  backendLimits: readonly string[],
): string[][] {
  return rows.flatMap((row) => [
    [
      configurationCell(row.configuration, backendLimits),
      owedCell(row.owed, guarantee),
      String(row.tally.runs),
      heldCell(row.tally.violations),
      String(row.tally.counts.lost),
      String(row.tally.counts.duplicated),
      String(row.tally.dedupHits),
    ],
    ...(row.view === undefined
      ? []
      : [
          [
            '↳ the materialized view’s table',
            owedCell(row.view.owed, guarantee),
            String(row.tally.runs),
            heldCell(row.view.tally.violations),
            String(row.view.tally.counts.lost),
            String(row.view.tally.counts.duplicated),
            '—',
          ],
        ]),
  ]);
}
