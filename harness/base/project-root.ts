import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, for starting the project's own entry points as child processes. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
