import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { PROJECT_ROOT } from '../../base/index.ts';

export { PROJECT_ROOT };

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one of the project's TypeScript entry points the way `npm run` does, without npm's noise. */
export function runTs(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 120_000,
): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', resolve(PROJECT_ROOT, script), ...args],
      { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}
