import type { AnomalyKind } from '../../properties/checkers/index.ts';
import type { SinkClassName } from '../../sinks/index.ts';
import { WRAPPER_MUTANTS, type WrapperMutantName } from './mutants.ts';
import { SOURCE_MUTANTS, type SourceMutantName } from './source-mutants.ts';

/** Every shipped mutant: the category it must be caught in, the classes it breaks, why it is realistic. */
export interface MutantEntry {
  readonly kind: 'wrapper' | 'source';
  readonly category: AnomalyKind;
  readonly classes: readonly SinkClassName[];
  readonly why: string;
}

export type MutantName = WrapperMutantName | SourceMutantName;

const entries = (kind: MutantEntry['kind'], mutants: Readonly<Record<string, Omit<MutantEntry, 'kind'>>>) =>
  Object.entries(mutants).map(
    ([name, { category, classes, why }]) => [name, { kind, category, classes, why }] as const,
  );

export const MUTANTS = Object.fromEntries([
  ...entries('wrapper', WRAPPER_MUTANTS),
  ...entries('source', SOURCE_MUTANTS),
]) as Readonly<Record<MutantName, MutantEntry>>;

export function isMutantName(name: string): name is MutantName {
  return name in MUTANTS;
}
