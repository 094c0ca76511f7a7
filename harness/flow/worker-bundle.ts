import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build, type BuildFailure, type Plugin } from 'esbuild';
import { HarnessError, PROJECT_ROOT } from '../base/index.ts';

/** The worker and everything of ours it imports; the npm packages stay imports. */
export const WORKER_SOURCE = 'harness/flow/worker.ts';

/**
 * Inside `node_modules`, so the bundle's bare imports (`better-sqlite3`, `pino`,
 * `@clickhouse/client`) resolve from the project's own packages, walking up from the file.
 */
export const WORKER_BUNDLE_DIR = resolve(PROJECT_ROOT, 'node_modules/.cache/chaos-sink-worker');

/** Bundles kept besides the current one, most recently used first: other checkouts sharing `node_modules` and supervisors still running an older source use them. */
const KEEP = 6;
/** A temp file this old was left by a process killed between its write and its rename. */
const ABANDONED_MS = 10 * 60_000;

export interface WorkerBundle {
  readonly path: string;
  readonly text: string;
}

/** By the source tree bundled: this checkout, or a mutated copy of it. */
const built = new Map<string, Promise<WorkerBundle>>();

/**
 * The path of the sink worker of the tree at `root` (this checkout, or a mutated copy of it)
 * bundled for plain `node` (no tsx): built once per tree and process, on first use. Every call
 * makes sure the file is still there (another checkout's prune may have removed it) and marks it
 * used.
 */
export async function bundledWorker(root = PROJECT_ROOT): Promise<string> {
  let building = built.get(root);
  if (building === undefined) {
    building = buildWorkerBundle(WORKER_SOURCE, WORKER_BUNDLE_DIR, root).catch((error: unknown) => {
      built.delete(root);
      throw error;
    });
    built.set(root, building);
  }
  const bundle = await building;
  storeBundle(bundle);
  return bundle.path;
}

/**
 * Bundles `source` of the tree at `root` in memory and stores it in `dir` under the SHA-256 of
 * its content, so a file there is never stale and processes storing the same bundle at once write
 * the same bytes; then prunes `dir`. A failed build writes nothing.
 */
export async function buildWorkerBundle(source: string, dir: string, root = PROJECT_ROOT): Promise<WorkerBundle> {
  const text = await bundleText(source, root);
  const sha = createHash('sha256').update(text).digest('hex');
  const bundle = { path: join(dir, `${sha}.mjs`), text };
  storeBundle(bundle);
  pruneBundles(dir, bundle.path);
  return bundle;
}

/**
 * The one module that finds the checkout from its own location: inside the bundle it is the
 * bundled tree's root as a literal, what the module would have found there (the bundle is named
 * by its content, so the literal can never be another tree's).
 */
const projectRootAsLiteral = (root: string): Plugin => ({
  name: 'project-root-as-literal',
  setup(plugin) {
    plugin.onLoad({ filter: /harness[\\/]base[\\/]project-root\.ts$/ }, () => ({
      contents: `export const PROJECT_ROOT = ${JSON.stringify(root)};`,
      loader: 'ts',
    }));
  },
});

async function bundleText(source: string, root: string): Promise<string> {
  let text: string;
  try {
    const result = await build({
      absWorkingDir: root,
      entryPoints: [resolve(root, source)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      target: `node${process.versions.node}`,
      // Error classes name themselves after their class (`new.target.name`); bundling must not rename them.
      keepNames: true,
      plugins: [projectRootAsLiteral(root)],
      write: false,
      logLevel: 'silent',
    });
    text = result.outputFiles[0]?.text ?? '';
  } catch (error) {
    throw new HarnessError(
      'WORKER_BUNDLE_FAILED',
      `esbuild could not bundle ${source} for the sink workers: ${firstProblem(error)}`,
      { cause: error },
    );
  }
  // In the bundle `import.meta.url` is the bundle's own file in the cache, not the source's: a
  // module that finds things relative to itself would silently look in the wrong place.
  if (text.includes('import.meta')) {
    throw new HarnessError(
      'WORKER_BUNDLE_LOCATION',
      `${source} reaches code that uses import.meta, which points into the bundle cache once bundled; pass what it locates in the WorkerConfig instead`,
    );
  }
  return text;
}

/** esbuild's first error, on one line with its place (`sinks/x.ts:3: Could not resolve "./y.ts"`). */
function firstProblem(error: unknown): string {
  const [first] = (error as Partial<BuildFailure> | null)?.errors ?? [];
  if (first === undefined) return error instanceof Error ? error.message : String(error);
  return first.location ? `${first.location.file}:${first.location.line}: ${first.text}` : first.text;
}

/** Writes the bundle if it is missing (temp name, then rename: readers never see half a file), and marks it used. */
export function storeBundle(bundle: WorkerBundle): void {
  try {
    statSync(bundle.path);
  } catch {
    mkdirSync(dirname(bundle.path), { recursive: true });
    // Unique per writer, threads of one process included: no two writers ever share a temp file.
    const temp = `${bundle.path}.${process.pid}-${randomUUID()}.tmp`;
    try {
      writeFileSync(temp, bundle.text);
      renameSync(temp, bundle.path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw new HarnessError('WORKER_BUNDLE_FAILED', `could not write the sink worker bundle ${bundle.path}`, {
        cause: error,
      });
    }
  }
  const now = new Date();
  utimesSync(bundle.path, now, now);
}

/** Keeps the `KEEP` most recently used bundles besides `current`, and removes abandoned temp files. */
function pruneBundles(dir: string, current: string): void {
  const entries = readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    try {
      return [{ path, name, used: statSync(path).mtimeMs }];
    } catch {
      return []; // removed meanwhile by another process's prune
    }
  });
  const bundles = entries
    .filter((entry) => entry.name.endsWith('.mjs') && entry.path !== current)
    .sort((a, b) => b.used - a.used);
  const abandoned = entries.filter((entry) => entry.name.endsWith('.tmp') && Date.now() - entry.used > ABANDONED_MS);
  for (const entry of [...bundles.slice(KEEP), ...abandoned]) rmSync(entry.path, { force: true });
}
