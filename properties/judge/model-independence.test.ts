import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The placement expectation, the guard model and what a class owes are the checkers' side of the
// comparison with the sink: read with the sinks' own code, a sink's bug would be theirs too and
// `misplaced`, `refusal-*` and the guarantee could not see it. Types may be shared; code may not.
const valueImportsFromSinks = (file: string): string[] =>
  [
    ...readFileSync(new URL(file, import.meta.url), 'utf8').matchAll(
      /^import (?!type )[^;]*from '([^']*\/sinks\/[^']*)'/gm,
    ),
  ].map((match) => match[1] ?? '');

describe("the judge's models share no code with the sinks", () => {
  it.each(['spec-topology.ts', 'expected-shard.ts', 'topology-key.ts', 'guard-model.ts', 'start-expectations.ts'])(
    '%s (placement and guard model) imports nothing from sinks/',
    (file) => expect(valueImportsFromSinks(file)).toEqual([]),
  );

  it.each(['judge-run.ts', 'owed.ts'])('%s takes what a class owes from properties/, not its descriptor', (file) =>
    expect(valueImportsFromSinks(file).filter((target) => target.endsWith('/sink-classes.ts'))).toEqual([]),
  );
});
