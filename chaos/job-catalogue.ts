import { ENGINE_SCENARIOS, type EngineScenario } from './kafka-engine/index.ts';
import { STAGED_SCENARIOS, type StagedScenario } from './staged-publication/index.ts';
import type { Profile } from './executor/index.ts';
import { findScenarios, type ScenarioDefinition } from './scenarios/index.ts';
import {
  type EngineClassName,
  type JudgedClassName,
  KAFKA_ENGINE_CLASS,
  STAGED_LOADER_CLASS,
  type StagedLoaderClassName,
} from '../properties/base/index.ts';
import { isSinkClassName, type SinkClassName } from '../sinks/index.ts';

/**
 * A scenario of the chaos job: the sinks' catalogue (`scenarios/`), then the Kafka engine's
 * (`kafka-engine/`), then the staged loader's (`staged-publication/`).
 */
export type JobScenario = ScenarioDefinition | EngineScenario | StagedScenario;

/** The catalogues of the paths that are not the sinks', each judged by its own room. */
const PATH_SCENARIOS: readonly (EngineScenario | StagedScenario)[] = [...ENGINE_SCENARIOS, ...STAGED_SCENARIOS];

export const isEngineScenario = (scenario: JobScenario): scenario is EngineScenario =>
  (ENGINE_SCENARIOS as readonly JobScenario[]).includes(scenario);

export const isStagedScenario = (scenario: JobScenario): scenario is StagedScenario =>
  (STAGED_SCENARIOS as readonly JobScenario[]).includes(scenario);

/** A scenario of the sinks' executor (a flow worker hosts the sink, the cluster shape may vary). */
export const isSinkScenario = (scenario: JobScenario): scenario is ScenarioDefinition =>
  !isEngineScenario(scenario) && !isStagedScenario(scenario);

/**
 * The job's scenarios by name, in catalogue order (the sinks' first), or every scenario of the
 * profile; an unknown name is refused naming both catalogues.
 */
export function findJobScenarios(names: readonly string[] | undefined, profile?: Profile): JobScenario[] {
  const paths = PATH_SCENARIOS.filter((scenario) => profile === undefined || scenario.profiles.includes(profile));
  if (names === undefined || names.length === 0) return [...findScenarios(undefined, profile), ...paths];
  const known = new Set(PATH_SCENARIOS.map((scenario) => scenario.name));
  const sinkNames = names.filter((name) => !known.has(name));
  const unknown = sinkNames.filter((name) => !findScenarios(undefined).some((scenario) => scenario.name === name));
  if (unknown.length > 0)
    throw new Error(
      `unknown scenario '${unknown[0]}'; the catalogue has ${[...findScenarios(undefined), ...PATH_SCENARIOS].map((scenario) => scenario.name).join(', ')}`,
    );
  return names.map(
    (name) =>
      PATH_SCENARIOS.find((scenario) => scenario.name === name) ?? (findScenarios([name])[0] as ScenarioDefinition),
  );
}

/** One class x scenario of the job, told apart by what runs it: a sink's executor, the Kafka engine's, or the staged loader's. */
export type JobPair =
  | { readonly kind: 'sink'; readonly sinkClass: SinkClassName; readonly scenario: ScenarioDefinition }
  | { readonly kind: 'engine'; readonly sinkClass: EngineClassName; readonly scenario: EngineScenario }
  | { readonly kind: 'staged'; readonly sinkClass: StagedLoaderClassName; readonly scenario: StagedScenario };

/** A pair of the matrix as what runs it; a sink scenario paired with the engine (or the reverse) is a harness bug. */
export function jobPair({ sinkClass, scenario }: { sinkClass: JudgedClassName; scenario: JobScenario }): JobPair {
  if (isEngineScenario(scenario) && sinkClass === KAFKA_ENGINE_CLASS) return { kind: 'engine', sinkClass, scenario };
  if (isStagedScenario(scenario) && sinkClass === STAGED_LOADER_CLASS) return { kind: 'staged', sinkClass, scenario };
  if (isSinkScenario(scenario) && isSinkClassName(sinkClass)) return { kind: 'sink', sinkClass, scenario };
  throw new Error(`${scenario.name} does not cover ${sinkClass}`);
}
