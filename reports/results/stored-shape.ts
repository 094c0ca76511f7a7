import { HarnessError } from '../../harness/base/index.ts';

/**
 * A small checker of a stored JSON file's shape: each function takes the value at `path` and
 * returns it typed, or throws one line naming the file and the field. Extra fields are allowed
 * (a reader takes what it needs); a missing or mistyped one is refused, never guessed at.
 */
export class StoredShape {
  constructor(readonly file: string) {}

  fail(path: string, expected: string, value: unknown): never {
    const got = value === undefined ? 'nothing' : JSON.stringify(value)?.slice(0, 60);
    throw new HarnessError(
      'STORED_FILE_INVALID',
      `${this.file}: ${path || 'the file'} should be ${expected}, got ${got}; the file was cut, edited by hand or written by another harness: run again to rewrite it`,
    );
  }

  object(value: unknown, path: string): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(path, 'an object', value);
    return value as Record<string, unknown>;
  }

  number(value: unknown, path: string): number {
    if (typeof value !== 'number' || !Number.isFinite(value)) this.fail(path, 'a number', value);
    return value as number;
  }

  string(value: unknown, path: string): string {
    if (typeof value !== 'string') this.fail(path, 'a string', value);
    return value as string;
  }

  boolean(value: unknown, path: string): boolean {
    if (typeof value !== 'boolean') this.fail(path, 'true or false', value);
    return value as boolean;
  }

  oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T {
    if (!allowed.includes(value as T)) this.fail(path, `one of ${allowed.join(', ')}`, value);
    return value as T;
  }

  array(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) this.fail(path, 'a list', value);
    return value as unknown[];
  }

  /** Every field of a record of counts a number (or null: not counted), to any depth (a `Tally`, a `faults` map). */
  counts(value: unknown, path: string): void {
    for (const [field, inner] of Object.entries(this.object(value, path))) {
      if (inner === null) continue;
      if (typeof inner === 'object') this.counts(inner, `${path}.${field}`);
      else this.number(inner, `${path}.${field}`);
    }
  }

  /** The file's `version`, which must be the one this harness reads. */
  version(
    value: unknown,
    current: number,
    remedy = 're-run with the harness that wrote it, or run again to rewrite it',
  ): void {
    const version = this.object(value, '').version;
    if (version !== current)
      throw new HarnessError(
        'STORED_FILE_VERSION',
        `${this.file}: version ${version === undefined ? '1 (unversioned)' : JSON.stringify(version)}, this harness reads version ${current}; it was written by another version of the harness: ${remedy}`,
      );
  }
}
