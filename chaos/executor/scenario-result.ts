import type { SinkClassName } from '../../sinks/domain/sink-class-name.ts';
import { coverageChecker, type Coverage, type Evidence } from '../../properties/checkers/coverage-checker.ts';
import type { DeliveryCounts } from '../../properties/checkers/total-queue-checker.ts';
import type { Verdict } from '../../properties/verdict.ts';
import type { ScenarioResult } from '../../reports/run-result.ts';
import type { ScenarioDefinition } from '../scenarios/scenario.ts';
import type { ExecutedRun, ScenarioOutcome } from './run-scenario.ts';

function mergeCoverage(runs: readonly ExecutedRun[]): Coverage {
  const declared = runs.flatMap((run) => (run.check ? [run.check.coverage] : []));
  const union = (pick: (c: Coverage) => readonly string[] | undefined) => [...new Set(declared.flatMap((c) => pick(c) ?? []))];
  const any = (pick: (c: Coverage) => boolean | undefined) => declared.some((c) => pick(c) === true);
  return {
    faults: union((c) => c.faults),
    crashPoints: union((c) => c.crashPoints),
    unknownOutcome: any((c) => c.unknownOutcome),
    replay: any((c) => c.replay),
    dedupHit: any((c) => c.dedupHit),
    refusal: any((c) => c.refusal),
    reconfiguredInFlight: any((c) => c.reconfiguredInFlight),
    queueDrop: any((c) => c.queueDrop),
  };
}

function sumEvidence(runs: readonly ExecutedRun[]): Evidence {
  const faults = new Map<string, number>();
  const crashes = new Map<string, number>();
  let unknownOutcomes = 0;
  let replays = 0;
  let dedupHits = 0;
  let refusals = 0;
  let reconfiguredInFlight = 0;
  let queueDrops = 0;
  for (const run of runs) {
    const evidence = run.check?.evidence;
    if (evidence === undefined) continue;
    for (const [type, n] of evidence.faultsFired) faults.set(type, (faults.get(type) ?? 0) + n);
    for (const [point, n] of evidence.crashes) crashes.set(point, (crashes.get(point) ?? 0) + n);
    unknownOutcomes += evidence.unknownOutcomes;
    replays += evidence.replays;
    dedupHits += evidence.dedupHits;
    refusals += evidence.refusals;
    reconfiguredInFlight += evidence.reconfiguredInFlight;
    queueDrops += evidence.queueDrops;
  }
  return { faultsFired: faults, crashes, unknownOutcomes, replays, dedupHits, refusals, reconfiguredInFlight, queueDrops };
}

/** Faults that fired, sink crashes included (as `sink_crash`, the catalogue's name for them). */
function faultCounts(evidence: Evidence): Record<string, number> {
  const crashes = [...evidence.crashes.values()].reduce((total, n) => total + n, 0);
  return { ...Object.fromEntries(evidence.faultsFired), ...(crashes > 0 ? { sink_crash: crashes } : {}) };
}

export function replayCommand(sinkClass: string, scenario: string, seed: number, path?: string): string {
  return `npm run chaos -- --sink ${sinkClass} --scenario ${scenario} --seed ${seed}${path ? ` --path ${path}` : ''}`;
}

/**
 * The verdict of a scenario for one class over all its runs: a violation in any run wins, then a
 * harness failure; otherwise the declared coverage must have happened across the runs, and a
 * time-limited check that did not finish its runs is inconclusive.
 */
export function scenarioResult(scenario: ScenarioDefinition, sinkClass: SinkClassName, outcome: ScenarioOutcome, seed: number): ScenarioResult {
  const { runs, details } = outcome;
  const violating = runs.filter((run) => run.check?.verdict === 'violation');
  const reported = violating.at(-1) ?? runs.at(-1);
  const notes: string[] = [];
  let verdict: Verdict;
  const infra = runs.filter((run) => run.infraError !== undefined);
  if (violating.length > 0) {
    verdict = 'violation';
  } else if (infra.length > 0) {
    verdict = 'infra-error';
    notes.push(...infra.map((run) => `run ${run.index}: ${run.infraError}`));
  } else if (runs.length === 0 || details.interrupted) {
    verdict = 'inconclusive';
    notes.push(`the time limit stopped the check after ${runs.length} of the planned runs`);
  } else {
    const coverage = coverageChecker(mergeCoverage(runs), sumEvidence(runs));
    verdict = coverage.verdict;
    notes.push(...(coverage.notes ?? []));
  }
  const zero: DeliveryCounts = { attempted: 0, acknowledged: 0, lost: 0, duplicated: 0, unexpected: 0, recovered: 0 };
  const counts = runs.reduce<DeliveryCounts>((total, run) => {
    const c = run.check?.counts;
    if (!c) return total;
    return {
      attempted: total.attempted + c.attempted,
      acknowledged: total.acknowledged + c.acknowledged,
      lost: total.lost + c.lost,
      duplicated: total.duplicated + c.duplicated,
      unexpected: total.unexpected + c.unexpected,
      recovered: total.recovered + c.recovered,
    };
  }, zero);
  const evidence = sumEvidence(runs);
  const path = details.failed && violating.length > 0 ? details.counterexamplePath ?? undefined : undefined;
  return {
    name: scenario.name,
    sinkClass,
    verdict,
    seed,
    path,
    replayCommand: replayCommand(sinkClass, scenario.name, seed, path),
    runs: runs.length,
    durationMs: runs.reduce((total, run) => total + run.durationMs, 0),
    phases: {
      clusterMs: 0,
      trafficMs: runs.reduce((total, run) => total + run.phases.trafficMs, 0),
      healMs: runs.reduce((total, run) => total + run.phases.healMs, 0),
      checkMs: runs.reduce((total, run) => total + run.phases.checkMs, 0),
    },
    counts,
    inserts: runs.reduce(
      (total, run) => ({ ok: total.ok + (run.check?.inserts.ok ?? 0), failed: total.failed + (run.check?.inserts.failed ?? 0), unknown: total.unknown + (run.check?.inserts.unknown ?? 0) }),
      { ok: 0, failed: 0, unknown: 0 },
    ),
    replays: evidence.replays,
    dedupHits: evidence.dedupHits,
    refusals: evidence.refusals,
    faults: faultCounts(evidence),
    anomalies: reported?.check?.results.flatMap((result) => result.anomalies) ?? [],
    notes,
    commands: reported?.input.commands.map((command) => command.toString()) ?? [],
  };
}
