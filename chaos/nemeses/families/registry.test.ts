import { describe, expect, it } from 'vitest';
import type { FaultSpec } from '../../../properties/schedule/fault-spec.ts';
import { LATENCY } from './client-link.ts';
import { faultSpec } from './family.ts';
import { KEEPER_LINK_CUT } from './keeper.ts';
import { checkFaultSpec, FAULT_FAMILIES, planOf } from './registry.ts';

/** A value of each parameter kind, so every family can build a spec. */
const sampleParams = (schema: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(
    Object.entries(schema).map(([name, kind]) => [
      name,
      kind === 'number' ? 300 : kind === 'string' ? 'k1' : (kind as string[])[0],
    ]),
  );

describe('the fault family registry', () => {
  it('accepts every spec its families build, and aims each by its own family', () => {
    for (const family of FAULT_FAMILIES.values()) {
      const spec = faultSpec(family, sampleParams(family.params) as never);
      expect(checkFaultSpec(JSON.parse(JSON.stringify(spec)))).toStrictEqual(spec);
      expect(planOf(spec).type).toBe(family.type);
    }
  });

  const latency = faultSpec(LATENCY, { ms: 300, jitter: 10 });
  it.each([
    [
      'an unknown family',
      { ...latency, family: 'teleport' },
      'family',
      'is "teleport", not a fault family of the catalogue',
    ],
    ['another family’s type', { ...latency, type: 'bandwidth' }, 'type', 'family latency records latency'],
    ['a missing parameter', { ...latency, params: { ms: 300 } }, 'params.jitter', 'must be a number'],
    [
      'a parameter of another family',
      { ...latency, params: { ms: 1, jitter: 1, rate: 2 } },
      'params.rate',
      'is not a parameter of latency',
    ],
    [
      'a scope it does not know',
      faultSpecWith(KEEPER_LINK_CUT, { scope: 'half' }),
      'params.scope',
      'must be one of replica, all',
    ],
    [
      'an unknown heal moment',
      { ...latency, heals: 'never' },
      'heals',
      'must be one of insert-ended, after-hold, writes-ended',
    ],
    ['an unknown outcome kind', { ...latency, expects: 'maybe' }, 'expects', 'must be landed or absent'],
  ])('names the field of %s', (_what, value, at, problem) => {
    const checked = checkFaultSpec(value);
    expect(checked).toMatchObject({ at });
    expect((checked as { problem: string }).problem).toContain(problem);
  });
});

function faultSpecWith(family: typeof KEEPER_LINK_CUT, params: Record<string, string>): FaultSpec {
  return { ...faultSpec(family, { scope: 'replica' }), params };
}
