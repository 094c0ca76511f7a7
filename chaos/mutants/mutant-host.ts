import { resolve } from 'node:path';
import { PROJECT_ROOT } from '../../harness/base/index.ts';
import { REAL_SINK_HOST, type SinkHost } from '../executor/index.ts';
import type { MutantName } from './catalogue.ts';
import { createMutatedTree } from './mutated-tree.ts';
import { isSourceMutantName, SOURCE_MUTANTS } from './source-mutants.ts';

const MUTANT_FACTORY = resolve(PROJECT_ROOT, 'chaos/mutants/mutant-sink-factory.ts');

/**
 * How a subject's sink workers are hosted: the control runs the real sinks; a wrapper mutant
 * the real sinks behind the mutant factory (`CHAOS_MUTANT`); a source mutant an edited copy of
 * the worker tree, made once per scenario in its directory.
 */
export function sinkHostFor(subject: MutantName | 'control'): SinkHost {
  if (subject === 'control') return REAL_SINK_HOST;
  if (isSourceMutantName(subject))
    return (scenarioDir) => ({ workerRoot: createMutatedTree(subject, SOURCE_MUTANTS[subject], scenarioDir) });
  return () => ({ factoryModule: MUTANT_FACTORY, env: { CHAOS_MUTANT: subject } });
}
