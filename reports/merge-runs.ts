import { mergeVerdicts } from '../properties/verdict.ts';
import type { DeliveryGuarantee } from '../sinks/sink-classes.ts';
import { aggregateClass } from './aggregate.ts';
import { insertPerformance } from './performance.ts';
import type { RunResult, ScenarioResult } from './run-result.ts';
import { runTimelines, type RunTimeline, type TaggedEvent } from './timeline.ts';

export interface SliceRun {
  readonly run: RunResult;
  /** The slice's `history.jsonl`, for the merged timelines and performance figures. */
  readonly events: readonly TaggedEvent[];
}

export class MergeError extends Error {}

/**
 * Joins the slices of one matrix (`--shard I/N` runs of the same seed, profile and backend) into
 * the report the unsliced run would have given: each class's scenarios from every slice, its
 * figures and verdict recomputed by the same rules. Every slice 1..N must be there exactly once
 * and no class x scenario may appear twice: a missing slice would otherwise read as a pass.
 * Wall time is the longest slice's (slices run side by side); cluster memory is not merged
 * (each slice had its own cluster).
 */
export function mergeSliceRuns(
  slices: readonly SliceRun[],
  order: { readonly scenarioRank: (name: string) => number; readonly classRank: (name: string) => number },
  runId: string,
): { run: RunResult; timelines: RunTimeline[] } {
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

  const scenarios = new Map<string, { guarantee: DeliveryGuarantee; scenarios: ScenarioResult[] }>();
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
      .sort(([a], [b]) => order.classRank(a) - order.classRank(b))
      .map(([sinkClass, entry]) => [
        sinkClass,
        aggregateClass(
          entry.guarantee,
          [...entry.scenarios].sort((a, b) => order.scenarioRank(a.name) - order.scenarioRank(b.name)),
          insertPerformance(timelines.filter((timeline) => timeline.sinkClass === sinkClass)),
        ),
      ]),
  );
  const runs = slices.map((slice) => slice.run);
  const run: RunResult = {
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
    verdict: mergeVerdicts(Object.values(classes).map((result) => result.verdict)),
    classes,
  };
  return { run, timelines };
}
