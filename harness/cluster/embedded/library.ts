import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { HarnessError } from '../../base/index.ts';

/** The one libchdb.so build whose functions the launcher redirects (ClickHouse 26.7.2.1). */
export const EXPECTED_LIBRARY = {
  package: '@chdb/lib-linux-x64-gnu',
  version: '26.7.3-stable.1',
  sha256: '36ad4e999882821ef13cf2d0f52c93f48e6ee1b4498b35a201c23ce4b8d15bf5',
} as const;

export function locateLibrary(): string {
  if (process.env.CHDB_LIBRARY) return process.env.CHDB_LIBRARY;
  const require = createRequire(import.meta.url);
  try {
    return join(dirname(require.resolve(`${EXPECTED_LIBRARY.package}/package.json`)), 'libchdb.so');
  } catch (error) {
    throw new HarnessError(
      'LIBRARY_MISSING',
      `${EXPECTED_LIBRARY.package}@${EXPECTED_LIBRARY.version} is not installed; run \`npm ci\` (it is an optional dependency for linux-x64-gnu only)`,
      { cause: error },
    );
  }
}

function sha256Of(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

interface CacheEntry {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly sha256: string;
}

/**
 * Refuses any library but the expected build: the launcher's offsets are only valid for it.
 * Hashing 566 MB takes seconds, so a verified (path, size, mtime, inode) is remembered.
 */
export async function verifyLibrary(path: string, cacheFile: string): Promise<void> {
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    throw new HarnessError(
      'LIBRARY_MISSING',
      `ClickHouse engine library not found at ${path}; run \`npm ci\` or set CHDB_LIBRARY`,
      { cause: error },
    );
  }
  const key = { path, size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino };
  const cached = readCache(cacheFile).find(
    (entry) =>
      entry.path === key.path && entry.size === key.size && entry.mtimeMs === key.mtimeMs && entry.ino === key.ino,
  );
  const sha256 = cached?.sha256 ?? (await sha256Of(path));
  if (sha256 !== EXPECTED_LIBRARY.sha256) {
    throw new HarnessError(
      'LIBRARY_WRONG_BUILD',
      `${path} has sha256 ${sha256}, not the ${EXPECTED_LIBRARY.package}@${EXPECTED_LIBRARY.version} build (${EXPECTED_LIBRARY.sha256}) the launcher was written for; install that exact version`,
    );
  }
  if (cached === undefined) {
    const entries = [...readCache(cacheFile).filter((entry) => entry.path !== path), { ...key, sha256 }];
    mkdirSync(dirname(cacheFile), { recursive: true });
    writeFileSync(cacheFile, JSON.stringify(entries));
  }
}

function readCache(cacheFile: string): CacheEntry[] {
  try {
    return JSON.parse(readFileSync(cacheFile, 'utf8')) as CacheEntry[];
  } catch {
    return [];
  }
}
