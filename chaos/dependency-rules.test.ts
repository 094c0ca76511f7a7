import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../harness/base/index.ts';

// One direction of dependency (README, top): sinks ← harness ← properties ← chaos, and reports
// reads what a run stored. The sinks are a library that knows nothing of the rig around them.
// Tests, benches and test support assemble layers on purpose and are exempt.
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  sinks: ['sinks'],
  harness: ['harness', 'sinks'],
  properties: ['properties', 'harness', 'sinks'],
  chaos: ['chaos', 'properties', 'harness', 'sinks', 'reports'],
  reports: ['reports', 'properties', 'harness', 'sinks'],
};
const EXEMPT = [/\.test\.ts$/, /\/testing\//, /\/bench\//];

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

/** `file -> imported file` for every relative import that crosses into a folder its own may not import. */
function backEdges(root: string): string[] {
  const edges: string[] = [];
  for (const folder of Object.keys(ALLOWED)) {
    for (const file of sources(join(root, folder))) {
      const own = relative(root, file);
      if (EXEMPT.some((pattern) => pattern.test(own))) continue;
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(
        /\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
      )) {
        const target = relative(root, resolve(dirname(file), match[1] ?? match[2] ?? ''));
        const top = target.split('/')[0] ?? '';
        if (top in ALLOWED && !(ALLOWED[folder] ?? []).includes(top)) edges.push(`${own} -> ${target}`);
      }
    }
  }
  return edges;
}

/** The rooms of `chaos/` (its sub-folders, `.` for the files at its top) each room's production code imports. */
function chaosRoomEdges(root: string): Map<string, Set<string>> {
  const chaos = join(root, 'chaos');
  const roomOf = (path: string) => (path.includes('/') ? (path.split('/')[0] ?? '') : '.');
  const edges = new Map<string, Set<string>>();
  for (const file of sources(chaos)) {
    const own = relative(chaos, file);
    if (EXEMPT.some((pattern) => pattern.test(own))) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(/\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = relative(chaos, resolve(dirname(file), match[1] ?? ''));
      if (target.startsWith('..') || roomOf(target) === roomOf(own)) continue;
      edges.set(roomOf(own), (edges.get(roomOf(own)) ?? new Set()).add(roomOf(target)));
    }
  }
  return edges;
}

/** Every cycle of rooms, as `a -> b -> a`. */
function cycles(edges: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const walk = (path: readonly string[]) => {
    for (const next of edges.get(path.at(-1) ?? '') ?? []) {
      if (next === path[0]) found.push([...path, next].join(' -> '));
      else if (!path.includes(next) && next > (path[0] ?? '')) walk([...path, next]);
    }
  };
  for (const room of edges.keys()) walk([room]);
  return found;
}

/** `file -> imported file` for every relative import of a production file under `folder`. */
function importsOf(root: string, folder: string): { own: string; target: string }[] {
  const found: { own: string; target: string }[] = [];
  for (const file of sources(join(root, folder))) {
    const own = relative(root, file);
    if (EXEMPT.some((pattern) => pattern.test(own))) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(
      /\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
    ))
      found.push({ own, target: relative(root, resolve(dirname(file), match[1] ?? match[2] ?? '')) });
  }
  return found;
}

const RESULTS = 'reports/results';
const RESULTS_FACE = `${RESULTS}/index.ts`;

/** Imports of a renderer (`reports/writers/`) that reach past the results room's face, or into `chaos/`. */
function rendererLeaks(root: string): string[] {
  return importsOf(root, 'reports/writers')
    .filter(
      ({ target }) =>
        target.startsWith('chaos/') ||
        (target.startsWith('reports/') && target !== RESULTS_FACE && !target.startsWith('reports/writers/')),
    )
    .map(({ own, target }) => `${own} -> ${target}`);
}

/** Imports from outside the results room of a file in it other than its face. */
function resultsRoomDeepImports(root: string): string[] {
  return ['chaos', 'reports', 'harness', 'properties']
    .flatMap((folder) => importsOf(root, folder))
    .filter(
      ({ own, target }) =>
        !own.startsWith(`${RESULTS}/`) && target.startsWith(`${RESULTS}/`) && target !== RESULTS_FACE,
    )
    .map(({ own, target }) => `${own} -> ${target}`);
}

describe('the dependency direction', () => {
  it('has no back-edge in production code', () => {
    expect(backEdges(PROJECT_ROOT)).toEqual([]);
  });

  it('lets the renderers import only the results room (its face) from reports, and nothing from chaos', () => {
    expect(rendererLeaks(PROJECT_ROOT)).toEqual([]);
  });

  it('lets nothing outside the results room reach past its face', () => {
    expect(resultsRoomDeepImports(PROJECT_ROOT)).toEqual([]);
  });

  it('has no cycle between the rooms of chaos/', () => {
    expect(cycles(chaosRoomEdges(PROJECT_ROOT))).toEqual([]);
  });
});
