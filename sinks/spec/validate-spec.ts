import type { SinkRegistry } from '../registry.ts';
import { SINK_CLASSES, type SinkClassDescriptor } from '../sink-classes.ts';
import { resolveSinkClassName } from './class-name.ts';
import { suggestion } from './closest-name.ts';
import { isJsonObject, ObjectReader, show, type JsonObject } from './object-reader.ts';
import { lookUpParameter, PARAMETER_NAMES, type ParameterSection } from './parameter-catalog.ts';
import { SinkSpecRefusal, SpecProblems, type SinkSpecProblem } from './spec-problem.ts';
import type { DynamicParameters, SinkSpec } from './sink-spec.ts';
import { readDynamicParameters } from './validate-dynamic.ts';
import { validateHostForms } from './validate-hosts.ts';
import { readStaticParameters } from './validate-static.ts';

export interface SpecValidationContext {
  /** The classes this binary knows; a spec naming another class is refused. */
  readonly registry: SinkRegistry<unknown>;
}

export type SpecValidation =
  | { readonly ok: true; readonly spec: SinkSpec }
  | { readonly ok: false; readonly problems: readonly SinkSpecProblem[] };

const TOP_LEVEL_KEYS = ['sink_class_name', 'name', 'input_stream_ids', 'parameters', 'dynamic_parameters'];

/** Checks every rule and returns the normalized spec, or every problem found. */
export function validateSinkSpec(raw: unknown, context: SpecValidationContext): SpecValidation {
  const problems = new SpecProblems();
  if (!isJsonObject(raw)) {
    problems.add('spec-shape', 'spec', `must be an object with sink_class_name, name and parameters, got ${show(raw)}`);
    return { ok: false, problems: problems.list };
  }
  for (const key of Object.keys(raw).filter((k) => !TOP_LEVEL_KEYS.includes(k))) {
    problems.add(
      'spec-unknown-key',
      key,
      `is not a spec field${suggestion(key, TOP_LEVEL_KEYS)}; a spec has ${TOP_LEVEL_KEYS.join(', ')}`,
    );
  }

  const className = resolveSinkClassName(raw.sink_class_name, context.registry, problems);
  const sinkClass = className === undefined ? undefined : SINK_CLASSES[className];
  const name = typeof raw.name === 'string' ? raw.name : '';
  if (name.trim() === '') {
    problems.add(
      'name-required',
      'name',
      `is required: a non-empty sink name (the prefix of the sink's state; keep it when changing the class), got ${show(raw.name)}`,
    );
  }
  const inputStreamIds = readInputStreamIds(raw.input_stream_ids, problems);

  const staticSource = sectionObject(raw, 'parameters', true, problems);
  const dynamicSource = sectionObject(raw, 'dynamic_parameters', false, problems);
  checkParameterNames(staticSource, 'parameters', sinkClass, problems);
  checkParameterNames(dynamicSource, 'dynamic_parameters', sinkClass, problems);

  const staticReader = new ObjectReader(staticSource, 'parameters', problems);
  const hosts = validateHostForms(staticReader, sinkClass);
  const parameters = readStaticParameters(staticReader, sinkClass, hosts);
  const dynamicParameters = readDynamicParameters(
    new ObjectReader(dynamicSource, 'dynamic_parameters', problems),
    sinkClass,
  );

  if (problems.list.length > 0 || className === undefined || parameters === undefined)
    return { ok: false, problems: problems.list };
  return {
    ok: true,
    spec: {
      sink_class_name: className,
      name,
      input_stream_ids: inputStreamIds,
      parameters,
      dynamic_parameters: dynamicParameters,
    },
  };
}

/** As `validateSinkSpec`, throwing a `SinkSpecRefusal` (code SINK_SPEC_INVALID) listing every problem. */
export function parseSinkSpec(raw: unknown, context: SpecValidationContext): SinkSpec {
  const result = validateSinkSpec(raw, context);
  if (result.ok) return result.spec;
  const name = isJsonObject(raw) && typeof raw.name === 'string' ? raw.name : undefined;
  throw new SinkSpecRefusal(result.problems, name);
}

/**
 * Validates a new `dynamic_parameters` object for a running sink (dynamic reconfiguration does
 * not repeat the static checks).
 */
export function validateDynamicParameters(
  raw: unknown,
  sinkClass: SinkClassDescriptor,
):
  | { readonly ok: true; readonly dynamic: DynamicParameters }
  | { readonly ok: false; readonly problems: readonly SinkSpecProblem[] } {
  const problems = new SpecProblems();
  const source = sectionObject({ dynamic_parameters: raw ?? {} }, 'dynamic_parameters', false, problems);
  checkParameterNames(source, 'dynamic_parameters', sinkClass, problems);
  const dynamic = readDynamicParameters(new ObjectReader(source, 'dynamic_parameters', problems), sinkClass);
  return problems.list.length > 0 ? { ok: false, problems: problems.list } : { ok: true, dynamic };
}

/** The descriptor of a validated spec's class. */
export function sinkClassOf(spec: SinkSpec): SinkClassDescriptor {
  return SINK_CLASSES[spec.sink_class_name];
}

function readInputStreamIds(value: unknown, problems: SpecProblems): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value) && value.every((id) => typeof id === 'string' && id !== '')) return value as string[];
  problems.add('input-stream-ids', 'input_stream_ids', `must be a list of non-empty stream ids, got ${show(value)}`);
  return [];
}

function sectionObject(
  raw: JsonObject,
  section: ParameterSection,
  required: boolean,
  problems: SpecProblems,
): JsonObject {
  const value = raw[section];
  if (value === undefined && !required) return {};
  if (isJsonObject(value)) return value;
  problems.add(
    'spec-shape',
    section,
    value === undefined
      ? 'is required (it holds at least table and the host form)'
      : `must be an object, got ${show(value)}`,
  );
  return {};
}

function checkParameterNames(
  source: JsonObject,
  section: ParameterSection,
  sinkClass: SinkClassDescriptor | undefined,
  problems: SpecProblems,
): void {
  for (const key of Object.keys(source)) {
    const found = lookUpParameter(section, key, sinkClass);
    const path = `${section}.${key}`;
    if (found.kind === 'unknown') {
      const known = [
        ...PARAMETER_NAMES[section],
        ...PARAMETER_NAMES[section === 'parameters' ? 'dynamic_parameters' : 'parameters'],
      ];
      problems.add('parameter-unknown', path, `is not a parameter of the ClickHouse sinks${suggestion(key, known)}`);
    } else if (found.kind === 'other-section') {
      const kind = found.section === 'parameters' ? 'static' : 'dynamic';
      problems.add('parameter-section', path, `is a ${kind} parameter; move it to ${found.section}`);
    } else if (found.kind === 'other-class') {
      problems.add('parameter-class', path, `applies only to ${found.audience}, not to ${sinkClass?.name}`);
    }
  }
}
