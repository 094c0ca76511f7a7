import { mergeVerdicts, type Verdict } from '../../properties/base/index.ts';
import type { DeliveryGuarantee } from '../../sinks/index.ts';
import type { ClassReport, ConfigurationRow, ScenarioReport } from './job-report.ts';
import type { InsertPerformance } from './performance.ts';
import { addTally, sumTallies } from './tally.ts';

/** A class's verdict: its scenarios' merged (a class with no scenario is inconclusive). */
export const classVerdict = (scenarios: readonly ScenarioReport[]): Verdict =>
  mergeVerdicts(scenarios.map((scenario) => scenario.verdict));

/** The job's verdict: its classes' merged. */
export const jobVerdict = (classes: Readonly<Record<string, ClassReport>>): Verdict =>
  mergeVerdicts(Object.values(classes).map((result) => result.verdict));

/** A class's line of the report: its scenarios merged, their tallies added. */
export function classReport(
  guarantee: DeliveryGuarantee,
  scenarios: readonly ScenarioReport[],
  performance: InsertPerformance,
): ClassReport {
  return {
    guarantee,
    verdict: classVerdict(scenarios),
    tally: sumTallies(scenarios.map((scenario) => scenario.tally)),
    performance,
    scenarios,
  };
}

/** Rows of one configuration as one (the owed guarantees are the first's: they are the same), in first-seen order. */
export function mergeConfigurationRows(rows: Iterable<ConfigurationRow>): ConfigurationRow[] {
  const merged = new Map<string, ConfigurationRow>();
  for (const row of rows) {
    const seen = merged.get(row.configuration);
    if (seen === undefined) {
      merged.set(row.configuration, row);
      continue;
    }
    const view =
      seen.view === undefined || row.view === undefined
        ? (seen.view ?? row.view)
        : { owed: seen.view.owed, tally: addTally(seen.view.tally, row.view.tally) };
    merged.set(row.configuration, {
      ...seen,
      tally: addTally(seen.tally, row.tally),
      ...(view === undefined ? {} : { view }),
    });
  }
  return [...merged.values()];
}

/** A class's configuration matrix: its scenarios' runs merged by configuration. */
export const classConfigurations = (scenarios: readonly ScenarioReport[]): ConfigurationRow[] =>
  mergeConfigurationRows(scenarios.flatMap((scenario) => scenario.configurations));
