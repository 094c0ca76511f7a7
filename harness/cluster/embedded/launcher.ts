import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HarnessError } from '../../base/index.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const LAUNCHER_SOURCE = join(here, 'launcher', 'chdb-launcher.c');
/** CHAOS_LAUNCHER_PATH moves the built launcher (tests use it to build from scratch). */
export const launcherBinary = () => process.env.CHAOS_LAUNCHER_PATH ?? join(here, 'launcher', 'build', 'chdb-launcher');

/** Exit codes of chdb-launcher.c, each with what it means for the user. */
export const LAUNCHER_EXIT_CODES: Readonly<Record<number, { code: string; meaning: string }>> = {
  64: { code: 'LAUNCHER_USAGE', meaning: 'the launcher was called with bad arguments (a harness bug)' },
  65: { code: 'LAUNCHER_DLOPEN', meaning: 'libchdb.so could not be loaded' },
  66: { code: 'LAUNCHER_SYMBOL', meaning: 'libchdb.so lacks the chDB entry points: not a chDB build' },
  67: {
    code: 'LAUNCHER_BYTES_MISMATCH',
    meaning: 'the code at a hook site is not what this launcher expects: a different libchdb.so build',
  },
  68: { code: 'LAUNCHER_MPROTECT', meaning: 'the hook sites could not be made writable' },
  69: { code: 'LAUNCHER_QUERY_FAILED', meaning: 'the engine refused to start listening (see the node log)' },
};

export function describeLauncherExit(code: number | null, signal: string | null): string {
  if (signal !== null) return `killed by ${signal}`;
  if (code === null) return 'exited';
  const known = LAUNCHER_EXIT_CODES[code];
  return known ? `exit ${code} (${known.code}): ${known.meaning}` : `exit ${code}`;
}

/** Builds the launcher with gcc when it is missing or older than its source. */
export function ensureLauncher(): string {
  const binary = launcherBinary();
  const fresh = existsSync(binary) && statSync(binary).mtimeMs >= statSync(LAUNCHER_SOURCE).mtimeMs;
  if (fresh) return binary;
  mkdirSync(dirname(binary), { recursive: true });
  try {
    execFileSync('gcc', ['-O2', '-Wall', '-Wextra', '-Werror', '-o', binary, LAUNCHER_SOURCE, '-ldl'], {
      stdio: 'pipe',
    });
  } catch (error) {
    const err = error as NodeJS.ErrnoException & { stderr?: Buffer };
    if (err.code === 'ENOENT') {
      throw new HarnessError(
        'GCC_MISSING',
        'gcc is not installed; it builds the ClickHouse launcher: `apt-get install gcc`',
        { cause: error },
      );
    }
    throw new HarnessError(
      'LAUNCHER_BUILD_FAILED',
      `gcc could not build ${LAUNCHER_SOURCE}: ${err.stderr?.toString().trim() ?? err.message}`,
      { cause: error },
    );
  }
  return binary;
}
