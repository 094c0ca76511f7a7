import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../base/index.ts';

/** The package a bare specifier names: `@scope/name` or `name`, without a sub-path. */
const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * Every module an entry file loads at start: its static value imports, followed through the
 * tree (type imports are erased, `import()` waits until called). Bare specifiers are packages.
 */
function loadedAtStart(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!file.startsWith('/')) return;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+['"]([^'"]+)['"]/gms)) {
      const specifier = match[1] ?? '';
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        if (existsSync(target)) visit(target);
      } else if (!specifier.startsWith('node:')) seen.add(packageOf(specifier));
    }
  };
  visit(resolve(PROJECT_ROOT, entry));
  return seen;
}

describe('what a CLI loads before it knows what it was asked', () => {
  it('npm run cluster loads the docker backend (testcontainers, a second of start-up) only when asked for it', () => {
    const loaded = loadedAtStart('harness/cli/cluster-cli.ts');
    expect(loaded.has(resolve(PROJECT_ROOT, 'harness/cluster/attach.ts')), 'the walk follows imports').toBe(true);
    expect(loaded.has('testcontainers')).toBe(false);
  });
});
