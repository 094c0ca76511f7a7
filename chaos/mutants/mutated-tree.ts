import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError, PROJECT_ROOT } from '../../harness/base/index.ts';
import type { SourceMutant } from './source-mutants.ts';

/** What a sink worker runs from: the runtime model and the sinks (the worker imports nothing else of ours). */
const WORKER_TREE = ['harness', 'sinks', 'package.json', 'tsconfig.json'];

/**
 * A copy of the worker's source tree under `dir` with one mutant's edit applied (node_modules
 * linked, not copied). Returns the copy's root, which the supervisor starts its workers from.
 * Refuses a stale mutant: its `find` text must occur exactly once.
 */
export function createMutatedTree(
  name: string,
  mutant: Pick<SourceMutant, 'file' | 'find' | 'replace'>,
  dir: string,
): string {
  const root = join(dir, `mutated-${name}`);
  mkdirSync(root, { recursive: true });
  for (const entry of WORKER_TREE)
    cpSync(join(PROJECT_ROOT, entry), join(root, entry), {
      recursive: true,
      filter: (source) => !source.endsWith('.test.ts'),
    });
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  const file = join(root, mutant.file);
  const text = readFileSync(file, 'utf8');
  const occurrences = text.split(mutant.find).length - 1;
  if (occurrences !== 1) {
    throw new HarnessError(
      'MUTANT_STALE',
      `mutant '${name}' expects its code once in ${mutant.file}, found it ${occurrences} time(s); update chaos/mutants/source-mutants.ts to the code as it is now`,
    );
  }
  writeFileSync(file, text.replace(mutant.find, mutant.replace));
  return root;
}
