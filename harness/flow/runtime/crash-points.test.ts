import { describe, expect, it } from 'vitest';
import { CrashSwitch, type CrashHit } from './crash-points.ts';

function recording(plan: ConstructorParameters<typeof CrashSwitch>[0]) {
  const hits: CrashHit[] = [];
  // Records instead of dying; returning (never the case for a real action) lets the test count on.
  const crash = new CrashSwitch(plan, async (hit) => {
    hits.push(hit);
    return undefined as never;
  });
  return { crash, hits };
}

describe('CrashSwitch', () => {
  it('fires only on the chosen occurrence of the matching point, partition and batch', async () => {
    const { crash, hits } = recording({ point: 'before-insert', occurrence: 2, partition: 1 });
    await crash.at('before-insert', 0, 1);
    await crash.at('during-insert', 1, 1);
    await crash.at('before-insert', 1, 1);
    await crash.at('before-insert', 1, 2);
    await crash.at('before-insert', 1, 3);
    expect(hits).toEqual([{ point: 'before-insert', partition: 1, batch: 2, occurrence: 2 }]);
  });

  it('matches a batch filter', async () => {
    const { crash, hits } = recording({ point: 'after-state', batch: 3 });
    for (const batch of [1, 2, 3, 4]) await crash.at('after-state', 0, batch);
    expect(hits.map((hit) => hit.batch)).toEqual([3]);
  });

  it('refuses unknown points and occurrences below 1', () => {
    expect(() => recording({ point: 'mid-flight' as 'after-state' })).toThrow(
      /Unknown crash point 'mid-flight'; the points are before-insert, during-insert/,
    );
    expect(() => recording({ point: 'after-state', occurrence: 0 })).toThrow(
      expect.objectContaining({ code: 'FLOW_CRASH_PLAN_INVALID' }),
    );
  });
});
