import type { DeliveryGuarantee } from '../sinks/sink-classes.ts';
import { NO_DELIVERIES } from '../properties/checkers/total-queue-checker.ts';
import { mergeVerdicts } from '../properties/verdict.ts';
import type { InsertPerformance } from './performance.ts';
import type {
  ClassResult,
  ConfigurationResult,
  InsertCounts,
  ScenarioResult,
  ServerDedupRuns,
  UnknownOutcomes,
} from './run-result.ts';

const ZERO_INSERTS: InsertCounts = { ok: 0, failed: 0, unknown: 0 };
const ZERO_UNKNOWN: UnknownOutcomes = { landed: 0, absent: 0, unresolved: 0 };
const ZERO_DEDUP: ServerDedupRuns = { offRuns: 0, onRuns: 0, acceptedTwice: 0 };

/** Field-wise sum of count records. */
function sum<T extends object>(items: readonly T[], zero: T): T {
  const total: Record<string, number> = { ...(zero as Record<string, number>) };
  for (const item of items) {
    for (const [key, value] of Object.entries(item as Record<string, number>)) total[key] = (total[key] ?? 0) + value;
  }
  return total as T;
}

/** A class's line of the report: its scenarios merged (a class with no scenario is inconclusive). */
export function aggregateClass(
  guarantee: DeliveryGuarantee,
  scenarios: readonly ScenarioResult[],
  performance: InsertPerformance,
): ClassResult {
  return {
    guarantee,
    verdict: mergeVerdicts(scenarios.map((scenario) => scenario.verdict)),
    counts: sum(
      scenarios.map((s) => s.counts),
      NO_DELIVERIES,
    ),
    inserts: sum(
      scenarios.map((s) => s.inserts),
      ZERO_INSERTS,
    ),
    replays: scenarios.reduce((total, s) => total + s.replays, 0),
    dedupHits: scenarios.reduce((total, s) => total + s.dedupHits, 0),
    refusals: scenarios.reduce((total, s) => total + s.refusals, 0),
    unknownOutcomes: sum(
      scenarios.map((s) => s.unknownOutcomes),
      ZERO_UNKNOWN,
    ),
    serverDedup: scenarios.some((s) => s.serverDedup !== null)
      ? sum(
          scenarios.flatMap((s) => (s.serverDedup === null ? [] : [s.serverDedup])),
          ZERO_DEDUP,
        )
      : null,
    faults: sum<Record<string, number>>(
      scenarios.map((s) => ({ ...s.faults })),
      {},
    ),
    giveUps: scenarios.reduce((total, s) => total + s.giveUps.length, 0),
    performance,
    scenarios,
  };
}

/** A class's configuration matrix: its scenarios' runs merged by configuration, in first-seen order. */
export function classConfigurations(scenarios: readonly ScenarioResult[]): ConfigurationResult[] {
  const merged = new Map<string, ConfigurationResult>();
  for (const row of scenarios.flatMap((scenario) => scenario.configurations ?? [])) {
    const seen = merged.get(row.configuration);
    merged.set(row.configuration, seen === undefined ? row : addConfigurations(seen, row));
  }
  return [...merged.values()];
}

/** Two rows of one configuration as one: the owed guarantees are the first's (they are the same), the figures add up. */
export function addConfigurations(a: ConfigurationResult, b: ConfigurationResult): ConfigurationResult {
  const view =
    a.view === undefined || b.view === undefined
      ? (a.view ?? b.view)
      : {
          owed: a.view.owed,
          violations: a.view.violations + b.view.violations,
          lost: a.view.lost + b.view.lost,
          duplicated: a.view.duplicated + b.view.duplicated,
        };
  return {
    ...a,
    runs: a.runs + b.runs,
    violations: a.violations + b.violations,
    lost: a.lost + b.lost,
    duplicated: a.duplicated + b.duplicated,
    dedupHits: a.dedupHits + b.dedupHits,
    ...(view === undefined ? {} : { view }),
  };
}
