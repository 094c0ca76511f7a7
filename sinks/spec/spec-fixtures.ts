import { expect } from 'vitest';
import { SinkRegistry } from '../registry.ts';
import type { SpecRule } from './spec-problem.ts';
import { validateSinkSpec, type SpecValidationContext } from './validate-spec.ts';

/** Spec builders and assertions shared by the spec validation tests. */
export type Json = Record<string, unknown>;
export const context: SpecValidationContext = { registry: SinkRegistry.descriptorsOnly() };

export const batching = (parameters: Json = {}, rest: Json = {}): Json => ({
  sink_class_name: 'NYT::NFlow::TClickHouseBatchingSink',
  name: 'events_sink',
  input_stream_ids: ['rows'],
  parameters: { host: 'ch-1', table: 'events', ...parameters },
  ...rest,
});
export const sharded = (parameters: Json = {}, rest: Json = {}): Json => ({
  sink_class_name: 'NYT::NFlow::TShardedClickHouseBatchingSink',
  name: 'events_sink',
  parameters: { shard_hosts: { a: ['ch-a-1', 'ch-a-2'], b: ['ch-b-1'] }, table: 'events', ...parameters },
  ...rest,
});
export const ofClass = (sink_class_name: string, parameters: Json = {}, rest: Json = {}): Json => ({
  ...batching(parameters, rest),
  sink_class_name,
});
export const withoutKey = (spec: Json, section: 'parameters', key: string): Json => {
  const copy = { ...(spec[section] as Json) };
  delete copy[key];
  return { ...spec, [section]: copy };
};

export function problemsOf(spec: unknown, ctx: SpecValidationContext = context) {
  const result = validateSinkSpec(spec, ctx);
  return result.ok ? [] : result.problems;
}

export function expectRefused(spec: unknown, rule: SpecRule, path: string, text?: RegExp, ctx?: SpecValidationContext) {
  const problems = problemsOf(spec, ctx);
  const problem = problems.find((p) => p.rule === rule && p.path === path);
  expect(
    problem,
    `expected ${rule} at ${path}, got ${problems.map((p) => p.message).join(' | ') || 'ok'}`,
  ).toBeDefined();
  expect(problem?.message).toContain(path);
  expect(problem?.message).toContain(`(rule: ${rule})`);
  if (text) expect(problem?.message).toMatch(text);
  return problem;
}
