import { execFileSync } from 'node:child_process';
import { PROJECT_ROOT } from '../harness/base/index.ts';

const git = (args: readonly string[]): string =>
  execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

/**
 * The git commit the harness runs from, with `+changes` when tracked files were edited since
 * (two slices of one commit and different edits are not one matrix); null outside a git checkout.
 */
export function sourceCommit(): string | null {
  try {
    const head = git(['rev-parse', 'HEAD']);
    return git(['status', '--porcelain', '--untracked-files=no']) === '' ? head : `${head}+changes`;
  } catch {
    return null;
  }
}
