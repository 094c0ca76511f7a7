import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/base/index.ts';
import { createMutatedTree } from './mutated-tree.ts';
import { SOURCE_MUTANTS } from './source-mutants.ts';

const dir = mkdtempSync(join(tmpdir(), 'mutated-tree-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createMutatedTree', () => {
  it.each(Object.entries(SOURCE_MUTANTS))(
    '%s: the copy differs from the tree in exactly its one edit',
    (name, mutant) => {
      const root = createMutatedTree(name, mutant, dir);
      const original = readFileSync(join(PROJECT_ROOT, mutant.file), 'utf8');
      const mutated = readFileSync(join(root, mutant.file), 'utf8');
      expect(mutated).not.toBe(original);
      expect(mutated).toBe(original.replace(mutant.find, mutant.replace));
      expect(readFileSync(join(root, 'harness/flow/worker.ts'), 'utf8')).toBe(
        readFileSync(join(PROJECT_ROOT, 'harness/flow/worker.ts'), 'utf8'),
      );
    },
  );

  it('refuses a mutant whose code is no longer there, naming the file', () => {
    expect(() =>
      createMutatedTree('stale', { ...SOURCE_MUTANTS['unknown-outcome-as-ok'], find: 'code that moved away' }, dir),
    ).toThrow(/mutant 'stale' expects its code once in sinks\/insert\/insert-runner.ts, found it 0 time/);
  });
});
