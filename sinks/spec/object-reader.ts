import { formatDuration, parseDuration } from './duration.ts';
import type { SpecProblems, SpecRule } from './spec-problem.ts';

export type JsonObject = Readonly<Record<string, unknown>>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface IntegerRange {
  readonly min: number;
  readonly max: number;
  readonly rule: SpecRule;
}

/**
 * Reads typed fields of one spec object, falling back to the default when a field is absent and
 * recording a problem (then also falling back) when it is malformed, so validation can go on
 * and report everything at once.
 */
export class ObjectReader {
  constructor(
    readonly source: JsonObject,
    readonly path: string,
    readonly problems: SpecProblems,
  ) {}

  has(key: string): boolean {
    return Object.hasOwn(this.source, key) && this.source[key] !== undefined;
  }

  pathOf(key: string): string {
    return `${this.path}.${key}`;
  }

  raw(key: string): unknown {
    return this.has(key) ? this.source[key] : undefined;
  }

  string(key: string, fallback: string): string {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (typeof value === 'string') return value;
    this.typeProblem(key, 'a string', value);
    return fallback;
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (typeof value === 'boolean') return value;
    this.typeProblem(key, 'true or false', value);
    return fallback;
  }

  integer(key: string, fallback: number, range: IntegerRange): number {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max) {
      this.problems.add(
        range.rule,
        this.pathOf(key),
        `must be an integer from ${range.min} to ${range.max}, got ${show(value)}`,
      );
      return fallback;
    }
    return value;
  }

  /** Undefined when absent; a list of strings otherwise (malformed elements are problems). */
  stringList(key: string): string[] | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.typeProblem(key, 'a list of strings', value);
      return [];
    }
    const strings = value.filter((item): item is string => typeof item === 'string');
    if (strings.length !== value.length) this.typeProblem(key, 'a list of strings', value);
    return strings;
  }

  oneOf<T extends string>(key: string, values: readonly T[], fallback: T, rule: SpecRule): T {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as T;
    this.problems.add(
      rule,
      this.pathOf(key),
      `must be one of ${values.map((v) => `'${v}'`).join(', ')}, got ${show(value)}`,
    );
    return fallback;
  }

  /** Milliseconds within [min, max]. */
  duration(key: string, fallback: number, min: number, max: number): number {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const parsed = parseDuration(value);
    if (!parsed.ok) {
      this.problems.add('duration', this.pathOf(key), parsed.reason);
      return fallback;
    }
    if (parsed.ms < min || parsed.ms > max) {
      this.problems.add(
        'duration',
        this.pathOf(key),
        `must be from ${formatDuration(min)} to ${formatDuration(max)}, got ${show(value)}`,
      );
      return fallback;
    }
    return parsed.ms;
  }

  private typeProblem(key: string, expected: string, value: unknown): void {
    this.problems.add('parameter-type', this.pathOf(key), `must be ${expected}, got ${show(value)}`);
  }
}

/** A short rendering of a JSON value for messages. */
export function show(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
