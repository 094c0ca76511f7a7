import type { Verdict } from '../properties/base/index.ts';
import type { JobReport } from '../reports/results/index.ts';
import { isSinkClassName } from '../sinks/index.ts';
import { findJobScenarios, isSinkScenario } from './job-catalogue.ts';

/**
 * Whether a scenario owes both kinds of unknown outcome (landed and absent) for this class. Per
 * class and both kinds: `server-windows` owes the batching classes only the absent kind, and the
 * Kafka engine's and the staged loader's scenarios owe none.
 */
export function declaresBothKinds(scenarioName: string, sinkClass: string): boolean {
  const [scenario] = findJobScenarios([scenarioName]);
  if (scenario === undefined || !isSinkScenario(scenario) || !isSinkClassName(sinkClass)) return false;
  const owed = scenario.coverage(sinkClass);
  return owed.unknownAbsent === true && owed.unknownLanded === true;
}

export interface ClassStability {
  readonly verdicts: Readonly<Record<Verdict, number>>;
  /** Exploring runs each scenario needed, over every seed. */
  readonly runsPerScenario: { readonly median: number; readonly max: number };
  readonly unknownLanded: number;
  readonly unknownAbsent: number;
  /** Seeds in which some scenario that declares both kinds for this class saw only one. */
  readonly seedsMissingAKind: number;
  readonly notes: readonly string[];
}

export interface Stability {
  readonly seeds: readonly number[];
  readonly verdicts: Readonly<Record<Verdict, number>>;
  readonly wallSeconds: { readonly median: number; readonly max: number };
  readonly classes: Readonly<Record<string, ClassStability>>;
}

const NO_VERDICTS: Record<Verdict, number> = {
  pass: 0,
  violation: 0,
  inconclusive: 0,
  interrupted: 0,
  'infra-error': 0,
};

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The figures of a stability run: verdicts per class over the seeds, runs used, both kinds of unknown outcome. */
export function summarizeStability(
  runs: readonly JobReport[],
  declaresBothKinds: (scenario: string, sinkClass: string) => boolean,
): Stability {
  const verdicts = { ...NO_VERDICTS };
  for (const run of runs) verdicts[run.verdict] += 1;
  const names = [...new Set(runs.flatMap((run) => Object.keys(run.classes)))];
  const classes = Object.fromEntries(
    names.map((name) => {
      const own = runs.flatMap((run) => (run.classes[name] ? [{ seed: run.seed, result: run.classes[name] }] : []));
      const perClass = { ...NO_VERDICTS };
      for (const { result } of own) perClass[result.verdict] += 1;
      const scenarioRuns = own.flatMap(({ result }) => result.scenarios.map((scenario) => scenario.runs));
      const missingAKind = own.filter(({ result }) =>
        result.scenarios.some(
          (s) =>
            declaresBothKinds(s.name, name) &&
            (s.tally.unknownOutcomes.landed === 0 || s.tally.unknownOutcomes.absent === 0),
        ),
      );
      const notes = own.flatMap(({ seed, result }) =>
        result.scenarios
          .filter((s) => s.verdict !== 'pass')
          .map(
            (s) =>
              `seed ${seed} ${s.name}: ${s.verdict} — ${[...s.notes, ...s.anomalies.map((a) => a.category)].join('; ')}`,
          ),
      );
      const stability: ClassStability = {
        verdicts: perClass,
        runsPerScenario: { median: median(scenarioRuns), max: Math.max(0, ...scenarioRuns) },
        unknownLanded: own.reduce((total, { result }) => total + result.tally.unknownOutcomes.landed, 0),
        unknownAbsent: own.reduce((total, { result }) => total + result.tally.unknownOutcomes.absent, 0),
        seedsMissingAKind: missingAKind.length,
        notes,
      };
      return [name, stability];
    }),
  );
  const seconds = runs.map((run) => run.durationMs / 1000);
  return {
    seeds: runs.map((run) => run.seed),
    verdicts,
    wallSeconds: { median: median(seconds), max: Math.max(0, ...seconds) },
    classes,
  };
}

/** The table the command prints. */
export function stabilityTable(stability: Stability): string {
  const lines = [
    `${stability.seeds.length} seeds: ${Object.entries(stability.verdicts)
      .map(([verdict, n]) => `${verdict} ${n}`)
      .join(
        ', ',
      )}; wall time median ${stability.wallSeconds.median.toFixed(0)} s, max ${stability.wallSeconds.max.toFixed(0)} s`,
    '',
    '| class | pass | violation | inconclusive | infra-error | runs per scenario (median / max) | unknown → landed / absent | seeds missing a kind |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, c] of Object.entries(stability.classes)) {
    lines.push(
      `| ${name} | ${c.verdicts.pass} | ${c.verdicts.violation} | ${c.verdicts.inconclusive} | ${c.verdicts['infra-error']} | ${c.runsPerScenario.median} / ${c.runsPerScenario.max} | ${c.unknownLanded} / ${c.unknownAbsent} | ${c.seedsMissingAKind} |`,
    );
  }
  const notes = Object.values(stability.classes).flatMap((c) => c.notes);
  if (notes.length > 0) lines.push('', ...notes.map((note) => `- ${note}`));
  return `${lines.join('\n')}\n`;
}
