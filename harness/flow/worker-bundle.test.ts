import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../base/index.ts';
import { buildWorkerBundle, storeBundle, WORKER_SOURCE } from './worker-bundle.ts';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'worker-bundle-'));
  dir = join(root, 'cache');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

describe('buildWorkerBundle', { timeout: 30_000 }, () => {
  it('stores the worker under the SHA-256 of its content, once, with no temp file left', async () => {
    const bundle = await buildWorkerBundle(WORKER_SOURCE, dir);
    expect(readdirSync(dir)).toEqual([basename(bundle.path)]);
    const text = readFileSync(bundle.path, 'utf8');
    expect(text).toBe(bundle.text);
    expect(basename(bundle.path)).toBe(`${createHash('sha256').update(text).digest('hex')}.mjs`);
    expect((await buildWorkerBundle(WORKER_SOURCE, dir)).path).toBe(bundle.path);
    expect(readdirSync(dir)).toEqual([basename(bundle.path)]);
  });

  it('bundles a copy of the tree (a mutated tree) from its own source', async () => {
    const copy = join(root, 'copy');
    for (const entry of ['harness', 'sinks', 'package.json', 'tsconfig.json'])
      cpSync(join(PROJECT_ROOT, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const retry = join(copy, 'sinks/retry/retry-policy.ts');
    writeFileSync(retry, `${readFileSync(retry, 'utf8')}\nconsole.log('the mutated copy');\n`);
    const own = await buildWorkerBundle(WORKER_SOURCE, dir);
    const mutated = await buildWorkerBundle(WORKER_SOURCE, dir, copy);
    expect(mutated.path).not.toBe(own.path);
    expect(mutated.text).toContain('the mutated copy');
    expect(own.text).not.toContain('the mutated copy');
  });

  it('a failed build is one coded error and writes nothing', async () => {
    await expect(buildWorkerBundle('harness/flow/no-such-worker.ts', dir)).rejects.toMatchObject({
      code: 'WORKER_BUNDLE_FAILED',
      message: expect.stringMatching(
        /^esbuild could not bundle harness\/flow\/no-such-worker\.ts for the sink workers: [^\n]+$/,
      ),
    });
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses code that locates things from import.meta, which would point into the cache', async () => {
    await expect(buildWorkerBundle('harness/cluster/embedded/launcher.ts', dir)).rejects.toMatchObject({
      code: 'WORKER_BUNDLE_LOCATION',
    });
    expect(existsSync(dir)).toBe(false);
  });

  it('keeps the six most recently used other bundles and removes temp files abandoned long ago', async () => {
    mkdirSync(dir);
    const others = Array.from({ length: 8 }, (_, i) => `other-${i + 1}.mjs`);
    others.forEach((name, i) => {
      writeFileSync(join(dir, name), '');
      utimesSync(join(dir, name), minutesAgo(i + 1), minutesAgo(i + 1));
    });
    writeFileSync(join(dir, 'abandoned.mjs.1.tmp'), '');
    utimesSync(join(dir, 'abandoned.mjs.1.tmp'), minutesAgo(20), minutesAgo(20));
    writeFileSync(join(dir, 'in-flight.mjs.2.tmp'), '');
    const bundle = await buildWorkerBundle(WORKER_SOURCE, dir);
    expect(readdirSync(dir).sort()).toEqual(
      [basename(bundle.path), ...others.slice(0, 6), 'in-flight.mjs.2.tmp'].sort(),
    );
  });

  it('a bundle removed meanwhile (another checkout pruned it) is written again when next used', async () => {
    const bundle = await buildWorkerBundle(WORKER_SOURCE, dir);
    rmSync(bundle.path);
    storeBundle(bundle);
    expect(readFileSync(bundle.path, 'utf8')).toBe(bundle.text);
  });
});
