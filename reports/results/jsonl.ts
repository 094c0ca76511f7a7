import { existsSync, readFileSync } from 'node:fs';

/** The records of a JSON-lines file, in order; none when the file does not exist yet. */
export function readJsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}
