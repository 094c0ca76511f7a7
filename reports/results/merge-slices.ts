import type { DeliveryGuarantee } from '../../sinks/index.ts';
import { classReport, jobVerdict } from './class-report.ts';
import { insertPerformance } from './performance.ts';
import type { JobReport, JobSelection, ScenarioReport } from './job-report.ts';
import { runTimelines, type RunTimeline, type TaggedEvent } from './timeline.ts';
import type { RunId } from '../../harness/base/index.ts';

export interface SliceRun {
  readonly run: JobReport;
  /** The slice's `history.jsonl`, for the merged timelines and performance figures. */
  readonly events: readonly TaggedEvent[];
}

export class MergeError extends Error {}

/** What a merge needs of the catalogue: its order, and the pairs each slice of a selection must hold. */
export interface MatrixCatalogue {
  readonly scenarioRank: (name: string) => number;
  readonly classRank: (name: string) => number;
  /** The `class/scenario` pairs slice `I/N` of the selection holds, recomputed from the catalogue. */
  readonly slicePairs: (selection: JobSelection, slice: string) => readonly string[];
}

const SELECTION_FIELDS = ['classes', 'scenarios', 'serverDedup', 'path'] as const;

/** The first way two slices' selections or commits differ, or undefined when they are one matrix's. */
function selectionDifference(run: JobReport, other: JobReport): string | undefined {
  for (const field of SELECTION_FIELDS) {
    const [mine, theirs] = [run.selection[field], other.selection[field]].map((value) => JSON.stringify(value));
    if (mine !== theirs) return `${field} ${mine}, ${other.runId} has ${theirs}`;
  }
  if (run.commit !== other.commit) return `commit ${run.commit}, ${other.runId} has ${other.commit}`;
  return undefined;
}

/** The slice holds exactly the pairs its selection gives it: a verdict for each, and nothing else. */
function checkSlicePairs(run: JobReport, selection: JobSelection, catalogue: MatrixCatalogue): void {
  const expected = catalogue.slicePairs(selection, run.slice ?? '');
  const held = Object.entries(run.classes).flatMap(([sinkClass, result]) =>
    result.scenarios.map((scenario) => `${sinkClass}/${scenario.name}`),
  );
  const missing = expected.filter((pair) => !held.includes(pair));
  if (missing.length > 0)
    throw new MergeError(
      `slice ${run.slice} (${run.runId}) has no verdict for ${missing.join(', ')}: every pair its selection gives it must be judged`,
    );
  const extra = held.filter((pair) => !expected.includes(pair));
  if (extra.length > 0)
    throw new MergeError(
      `slice ${run.slice} (${run.runId}) holds ${extra.join(', ')}, which its selection does not give it`,
    );
}

/**
 * Joins the slices of one matrix (`--shard I/N` runs of the same seed, profile, backend,
 * selection and commit) into the report the unsliced run would have given: each class's
 * scenarios from every slice, its figures and verdict recomputed by the same rules. Every slice
 * 1..N must be there exactly once, each holding a verdict for exactly the pairs the catalogue
 * gives its slice of the selection: a missing slice or pair would otherwise read as a pass.
 * Wall time is the longest slice's (slices run side by side); cluster memory is not merged
 * (each slice had its own cluster).
 */
export function mergeSliceRuns(
  slices: readonly SliceRun[],
  catalogue: MatrixCatalogue,
  runId: RunId,
): { run: JobReport; timelines: RunTimeline[] } {
  const [first] = slices;
  if (first === undefined) throw new MergeError('nothing to merge: give the report directories of the slices');
  for (const { run } of slices) {
    if (run.slice === null)
      throw new MergeError(`${run.runId} is not a slice (it ran without --shard); only slices are merged`);
    for (const field of ['seed', 'profile', 'backend'] as const) {
      if (run[field] !== first.run[field])
        throw new MergeError(
          `${run.runId} has ${field} ${run[field]}, ${first.run.runId} has ${first.run[field]}: slices of one matrix share seed, profile and backend`,
        );
    }
    const difference = selectionDifference(run, first.run);
    if (difference !== undefined)
      throw new MergeError(
        `${run.runId} has ${difference}: slices of one matrix share --sink, --scenario, --server-dedup, --path and the commit`,
      );
  }
  const parsed = slices.map(({ run }) => {
    const [index, count] = (run.slice ?? '').split('/').map(Number);
    return { runId: run.runId, index: index ?? 0, count: count ?? 0 };
  });
  const count = parsed[0]?.count ?? 0;
  if (parsed.some((slice) => slice.count !== count))
    throw new MergeError(`slices of different matrices: ${slices.map(({ run }) => run.slice).join(', ')}`);
  for (let index = 1; index <= count; index++) {
    const found = parsed.filter((slice) => slice.index === index);
    if (found.length === 0) throw new MergeError(`slice ${index}/${count} is missing`);
    if (found.length > 1)
      throw new MergeError(`slice ${index}/${count} is given twice (${found.map((slice) => slice.runId).join(', ')})`);
  }
  for (const { run } of slices) checkSlicePairs(run, run.selection, catalogue);

  const scenarios = new Map<string, { guarantee: DeliveryGuarantee; scenarios: ScenarioReport[] }>();
  const seen = new Set<string>();
  for (const { run } of slices) {
    for (const [sinkClass, result] of Object.entries(run.classes)) {
      const entry = scenarios.get(sinkClass) ?? { guarantee: result.guarantee, scenarios: [] };
      for (const scenario of result.scenarios) {
        const key = `${sinkClass}/${scenario.name}`;
        if (seen.has(key)) throw new MergeError(`${key} appears in two slices`);
        seen.add(key);
        entry.scenarios.push(scenario);
      }
      scenarios.set(sinkClass, entry);
    }
  }
  const timelines = runTimelines(slices.flatMap((slice) => slice.events));
  const classes = Object.fromEntries(
    [...scenarios.entries()]
      .sort(([a], [b]) => catalogue.classRank(a) - catalogue.classRank(b))
      .map(([sinkClass, entry]) => [
        sinkClass,
        classReport(
          entry.guarantee,
          [...entry.scenarios].sort((a, b) => catalogue.scenarioRank(a.name) - catalogue.scenarioRank(b.name)),
          insertPerformance(timelines.filter((timeline) => timeline.sinkClass === sinkClass)),
        ),
      ]),
  );
  const runs = slices.map((slice) => slice.run);
  const run: JobReport = {
    runId,
    backend: first.run.backend,
    backendLimits: first.run.backendLimits,
    seed: first.run.seed,
    profile: first.run.profile,
    slice: [...parsed]
      .sort((a, b) => a.index - b.index)
      .map((slice) => `${slice.index}/${slice.count}`)
      .join(' + '),
    startedAt: runs.map((each) => each.startedAt).sort()[0] ?? first.run.startedAt,
    durationMs: Math.max(...runs.map((each) => each.durationMs)),
    clusterStartMs: Math.max(...runs.map((each) => each.clusterStartMs)),
    clusterMemory: null,
    verdict: jobVerdict(classes),
    classes,
    interrupted: runs.some((each) => each.interrupted),
    selection: first.run.selection,
    commit: first.run.commit,
  };
  return { run, timelines };
}
