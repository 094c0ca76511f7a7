import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The placement expectation, the guard model and what a class owes are the checkers' side of the
// comparison with the sink: read with the sinks' own code, a sink's bug would be theirs too and
// `misplaced`, `refusal-*` and the guarantee could not see it. Types may be shared; code may not.
/** What a file imports from `sinks/` as values: each name, or the whole clause of a default or namespace import. */
const valueImportsFromSinks = (file: string): string[] =>
  [
    ...readFileSync(new URL(file, import.meta.url), 'utf8').matchAll(
      /^import (?!type )([^;]*?) from '[^']*\/sinks\/[^']*'/gm,
    ),
  ].flatMap(([, clause = '']) =>
    clause.startsWith('{')
      ? clause
          .slice(1, -1)
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '' && !name.startsWith('type '))
      : [clause],
  );

describe("the judge's models share no code with the sinks", () => {
  it.each(['spec-topology.ts', 'expected-shard.ts', 'topology-key.ts', 'guard-model.ts', 'start-expectations.ts'])(
    '%s (placement and guard model) imports nothing from sinks/',
    (file) => expect(valueImportsFromSinks(file)).toEqual([]),
  );

  it.each(['judge-run.ts', 'owed.ts'])('%s takes what a class owes from properties/, not its descriptor', (file) =>
    expect(valueImportsFromSinks(file).filter((name) => name === 'SINK_CLASSES')).toEqual([]),
  );
});
