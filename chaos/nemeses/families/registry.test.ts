import { describe, expect, it } from 'vitest';
import { describeFault, type FaultSpec } from '../../../properties/schedule/index.ts';
import { LATENCY } from './client-link.ts';
import { faultSpec } from './family.ts';
import { KEEPER_LINK_CUT } from './keeper.ts';
import { checkFaultSpec, FAULT_FAMILIES, planOf } from './registry.ts';
import { KEEPER_LINK_LATENCY } from './keeper-link-latency.ts';
import { COMMIT_KEEPER_CUT } from './server-window.ts';
import { QUORUM_INTERSERVER_CUT, QUORUM_SIBLING_KILL, QUORUM_SIBLING_PAUSE } from './quorum.ts';
import type { AimTarget } from '../fault-plan.ts';

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

  it('records for each family what the checker required of its fault type before proofs were recorded', () => {
    const proofs = Object.fromEntries(
      [...FAULT_FAMILIES.values()].map((family) => [
        family.id,
        planOf(faultSpec(family, sampleParams(family.params) as never)).proofs,
      ]),
    );
    const link = ['client-link-carried'];
    const seen = ['process-seen'];
    expect(proofs).toEqual({
      reset_peer: link,
      limit_data: link,
      response_timeout: link,
      request_timeout: link,
      latency: link,
      bandwidth: link,
      slicer: link,
      proxy_down: ['failed-at-link'],
      replica_kill: seen,
      replica_pause: seen,
      interserver_cut: [],
      quorum_sibling_pause: seen,
      quorum_sibling_kill: seen,
      quorum_interserver_cut: [],
      keeper_pause: seen,
      keeper_link_cut: [],
      keeper_link_latency: ['links-active', 'keeper-wait'],
      keeper_leader_pause: seen,
      keeper_leader_kill: seen,
      keeper_quorum_loss: seen,
      too_many_parts: ['server-code'],
      not_enough_space: ['server-code'],
      table_detached: ['server-code'],
      constraint_violated: ['server-code'],
      part_writer_failpoint: ['server-code'],
      commit_keeper_cut: ['server-code', 'window-hit'],
    });
  });

  it('aims keeper_link_latency at the Keeper links of the INSERT’s replica, every member’s, downstream', () => {
    const target = {
      replica: {
        name: 's1r2',
        proxies: { client: 's1r2_client', interserver: 's1r2_is', keepers: ['s1r2_k1', 's1r2_k2'] },
      },
      siblings: [],
      description: { shards: [] },
    } as unknown as AimTarget;
    const spec = faultSpec(KEEPER_LINK_LATENCY, { ms: 300, jitter: 20 });
    const fault = planOf(spec).aimAt(target);
    expect(fault.type).toBe('latency');
    expect(fault.effect).toBe('slow');
    expect(fault.targets).toEqual(['s1r2_k1', 's1r2_k2']);
    expect(fault.toString()).toBe('latency(s1r2_k1+s1r2_k2, 300ms±20)');
    expect(describeFault(spec)).toBe("latency(the Keeper links of the INSERT's replica, 300ms±20)");
    expect(spec).toMatchObject({ family: 'keeper_link_latency', heals: 'insert-ended' });
  });

  it('aims commit_keeper_cut at the INSERT’s replica and its Keeper links, on a first attempt, expecting 319 and no rows', () => {
    const target = {
      replica: {
        name: 's1r2',
        proxies: { client: 's1r2_client', interserver: 's1r2_is', keepers: ['s1r2_k1', 's1r2_k2'] },
      },
      siblings: [],
      description: { shards: [] },
    } as unknown as AimTarget;
    const spec = faultSpec(COMMIT_KEEPER_CUT, {});
    const plan = planOf(spec);
    const fault = plan.aimAt(target);
    expect(fault.type).toBe('server_window');
    expect(fault.effect).toBe('error');
    expect(fault.targets).toEqual(['s1r2', 's1r2_k1', 's1r2_k2']);
    expect(fault.toString()).toBe('commit_keeper_cut(s1r2)');
    expect(plan).toMatchObject({ heals: 'insert-ended', expects: 'absent', firstAttempt: true });
  });

  it('aims every quorum family only at an INSERT alone on its shard, and the plan says so', () => {
    for (const family of [QUORUM_SIBLING_PAUSE, QUORUM_SIBLING_KILL, QUORUM_INTERSERVER_CUT])
      expect(planOf(faultSpec(family, {})), family.id).toMatchObject({ firstAttempt: true, aloneOnShard: true });
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
    ['a flag that is not a boolean', { ...latency, aloneOnShard: 'yes' }, 'aloneOnShard', 'must be true or false'],
  ])('names the field of %s', (_what, value, at, problem) => {
    const checked = checkFaultSpec(value);
    expect(checked).toMatchObject({ at });
    expect((checked as { problem: string }).problem).toContain(problem);
  });
});

function faultSpecWith(family: typeof KEEPER_LINK_CUT, params: Record<string, string>): FaultSpec {
  return { ...faultSpec(family, { scope: 'replica' }), params };
}
