import { existsSync, mkdirSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { HarnessError } from '../base/index.ts';

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

/**
 * Makes sure `path` is a directory this process can write, before a command starts anything;
 * returns it absolute. Bad input is refused with one line and leaves nothing behind (directories
 * created here are removed again). Levels are created one at a time: Node's recursive mkdir
 * spins forever where the kernel answers ENOENT inside an existing directory (`/proc/x`).
 */
export function prepareWritableDir(path: string, option: string): string {
  const absolute = resolve(path);
  const missing: string[] = [];
  let existing = absolute;
  while (!existsSync(existing)) {
    missing.unshift(existing);
    existing = dirname(existing);
  }
  if (!statSync(existing).isDirectory())
    throw new HarnessError('CLI_USAGE', `${option} ${path}: ${existing} is not a directory`);
  const created: string[] = [];
  const undo = () => {
    for (const dir of created.reverse()) rmdirSync(dir);
  };
  try {
    for (const dir of missing) {
      mkdirSync(dir);
      created.push(dir);
    }
  } catch (error) {
    undo();
    throw new HarnessError(
      'CLI_USAGE',
      `${option} ${path}: cannot create ${missing[created.length] ?? absolute} (${codeOf(error)})`,
    );
  }
  const probe = join(absolute, `.write-probe-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    undo();
    throw new HarnessError('CLI_USAGE', `${option} ${path}: the directory is not writable (${codeOf(error)})`);
  }
  return absolute;
}
