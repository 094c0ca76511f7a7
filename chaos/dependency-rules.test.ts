import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../harness/base/index.ts';

// One direction of dependency (README, top): sinks ← harness ← properties ← chaos, and reports
// reads what a run stored. The sinks are a library that knows nothing of the rig around them.
// Tests, benches and test support assemble layers and rooms on purpose and are exempt.
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  sinks: ['sinks'],
  harness: ['harness', 'sinks'],
  properties: ['properties', 'harness', 'sinks'],
  chaos: ['chaos', 'properties', 'harness', 'sinks', 'reports'],
  reports: ['reports', 'properties', 'harness', 'sinks'],
};
const EXEMPT = [/\.test\.ts$/, /\/testing\//, /\/bench\//];

/**
 * The rooms inside the five folders (README, "What is here"). A file belongs to the room of its
 * nearest enclosing folder listed here; its sub-folders that are not listed are part of it. Other
 * rooms enter a room only through its face, `index.ts`. A new room is a line here, a face and a
 * README with the four headings below.
 */
const ROOMS = [
  'sinks',
  'harness/base',
  'harness/cluster',
  'harness/clickhouse',
  'harness/cli',
  'harness/flow',
  'harness/flow/history',
  'harness/oracle',
  'properties/base',
  'properties/arbitraries',
  'properties/schedule',
  'properties/checkers',
  'properties/judge',
  'chaos',
  'chaos/toxiproxy',
  'chaos/nemeses',
  'chaos/scenarios',
  'chaos/executor',
  'chaos/mutants',
  'chaos/kafka-engine',
  'chaos/staged-publication',
  'reports/results',
  'reports/writers',
];
/** Rooms of entry points only (the chaos commands, the mutation matrix): nothing imports them, so they have no face. */
const ENTRY_POINTS_ONLY = ['chaos', 'chaos/mutants'];
/** What every room's README says, each under a heading of its own (`## Face` and `## How to add one more: a toxic` count). */
const README_HEADINGS = ['Purpose', 'Face', 'Invariants', 'How to add one more'];

/** Run output under `reports/`: a stored run, or `npm run mutants`' mutated copies of the tree. */
const RUN_OUTPUT = /(^|\/)reports\/(mutants|latest|\d[^/]*)$/;

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (RUN_OUTPUT.test(path)) continue;
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

/** `file -> imported file` for every relative import, re-export and dynamic import of the production files under `folder`. */
function importsOf(root: string, folder: string): { own: string; target: string }[] {
  const found: { own: string; target: string }[] = [];
  for (const file of sources(join(root, folder))) {
    const own = relative(root, file);
    if (EXEMPT.some((pattern) => pattern.test(own))) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(
      /\b(?:from|import)\s+['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
    ))
      found.push({ own, target: relative(root, resolve(dirname(file), match[1] ?? match[2] ?? '')) });
  }
  return found;
}

const productionImports = (root: string) => Object.keys(ALLOWED).flatMap((folder) => importsOf(root, folder));

/** `file -> imported file` for every relative import that crosses into a folder its own may not import. */
function backEdges(root: string): string[] {
  return productionImports(root)
    .filter(({ own, target }) => {
      const from = own.split('/')[0] ?? '';
      const to = target.split('/')[0] ?? '';
      return to in ALLOWED && !(ALLOWED[from] ?? []).includes(to);
    })
    .map(({ own, target }) => `${own} -> ${target}`);
}

/** The room a file belongs to: its nearest enclosing folder that is a room. */
function roomOf(file: string): string | undefined {
  return ROOMS.filter((room) => file.startsWith(`${room}/`)).sort((a, b) => b.length - a.length)[0];
}
const faceOf = (room: string) => `${room}/index.ts`;

/** Production files that belong to no room. */
function homeless(root: string): string[] {
  return Object.keys(ALLOWED)
    .flatMap((folder) => [...sources(join(root, folder))].map((file) => relative(root, file)))
    .filter((own) => !EXEMPT.some((pattern) => pattern.test(own)) && roomOf(own) === undefined);
}

/** Imports that do not go through a door: into another room past its face, or from a room into its own face (a cycle through the face waiting to happen). */
function doorViolations(root: string): string[] {
  return productionImports(root)
    .filter(({ own, target }) => {
      const from = roomOf(own);
      const to = roomOf(target);
      return from === to ? target === faceOf(to ?? '') : to !== undefined && target !== faceOf(to);
    })
    .map(({ own, target }) => `${own} -> ${target}`);
}

/** Which rooms each room's production code imports. */
function roomEdges(root: string): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const { own, target } of productionImports(root)) {
    const from = roomOf(own);
    const to = roomOf(target);
    if (from === undefined || to === undefined || from === to) continue;
    edges.set(from, (edges.get(from) ?? new Set()).add(to));
  }
  return edges;
}

/** Every cycle of rooms, as `a -> b -> a` (each once, from its smallest room). */
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

/** What a room lacks: its face (unless it holds entry points only), its README, a heading of the README. */
function missingParts(root: string): string[] {
  return ROOMS.flatMap((room) => {
    const missing: string[] = [];
    const hasFace = existsSync(join(root, faceOf(room)));
    if (ENTRY_POINTS_ONLY.includes(room) === hasFace)
      missing.push(hasFace ? `${faceOf(room)} (declared entry points only)` : faceOf(room));
    const readme = join(root, room, 'README.md');
    if (!existsSync(readme)) return [...missing, `${room}/README.md`];
    const text = readFileSync(readme, 'utf8');
    for (const heading of README_HEADINGS)
      if (!new RegExp(`^#{2,3} ${heading}\\b`, 'm').test(text)) missing.push(`${room}/README.md: ## ${heading}`);
    return missing;
  });
}

describe('the dependency direction', () => {
  it('has no back-edge between the five folders in production code', () => {
    expect(backEdges(PROJECT_ROOT)).toEqual([]);
  });
});

describe('the rooms', () => {
  it('hold every production file', () => {
    expect(homeless(PROJECT_ROOT)).toEqual([]);
  });

  it('are entered only through their face: no deep import from another room, no import of its own face', () => {
    expect(doorViolations(PROJECT_ROOT)).toEqual([]);
  });

  it('depend on each other without a cycle', () => {
    expect(cycles(roomEdges(PROJECT_ROOT))).toEqual([]);
  });

  it('each have a face (but the entry-point rooms) and a README saying purpose, face, invariants and how to add one more', () => {
    expect(missingParts(PROJECT_ROOT)).toEqual([]);
  });
});
