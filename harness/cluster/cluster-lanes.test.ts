import { describe, expect, it } from 'vitest';
import { type LanePlan, runInLanes } from './cluster-lanes.ts';

interface Group {
  readonly name: string;
  readonly need: number;
}

/** A plan over fake groups whose runs end when the test says so; it records what ran at once. */
function harness(lanes: number, available: number) {
  const log: string[] = [];
  const running = new Set<string>();
  let widest = 0;
  const finish = new Map<string, () => void>();
  const started = new Map<string, () => void>();
  const whenStarted = (name: string) =>
    new Promise<void>((resolve) => (running.has(name) ? resolve() : started.set(name, resolve)));
  let stop = false;
  const plan: LanePlan<Group> = {
    lanes,
    needMiB: (group) => group.need,
    shortfall: (group, left) => (left >= group.need ? undefined : `${group.name} needs ${group.need}, ${left} left`),
    availableMiB: () => available,
    stopped: () => stop,
    run: (group) =>
      new Promise<void>((resolve, reject) => {
        running.add(group.name);
        widest = Math.max(widest, running.size);
        log.push(`start ${group.name}`);
        started.get(group.name)?.();
        finish.set(group.name, () => {
          running.delete(group.name);
          log.push(`end ${group.name}`);
          if (group.name.startsWith('broken')) reject(new Error(`${group.name} would not start`));
          else resolve();
        });
      }),
    skip: (group, why) => log.push(`skip ${group.name}: ${'short' in why ? why.short : 'stopped'}`),
  };
  const end = async (name: string) => {
    await whenStarted(name);
    finish.get(name)?.();
  };
  return { plan, log, end, whenStarted, widest: () => widest, stopNow: () => (stop = true) };
}

describe('runInLanes', () => {
  it('runs one group at a time with one lane, in order', async () => {
    const h = harness(1, 10_000);
    const job = runInLanes(
      [
        { name: 'a', need: 1 },
        { name: 'b', need: 1 },
      ],
      h.plan,
    );
    await h.end('a');
    await h.end('b');
    await job;
    expect(h.log).toEqual(['start a', 'end a', 'start b', 'end b']);
    expect(h.widest()).toBe(1);
  });

  it('runs two groups side by side with two lanes, the next starting where a lane frees', async () => {
    const h = harness(2, 10_000);
    const job = runInLanes(
      [
        { name: 'long', need: 1 },
        { name: 'short', need: 1 },
        { name: 'next', need: 1 },
      ],
      h.plan,
    );
    await h.whenStarted('long');
    await h.end('short');
    await h.end('next');
    await h.end('long');
    await job;
    expect(h.log).toEqual(['start long', 'start short', 'end short', 'start next', 'end next', 'end long']);
    expect(h.widest()).toBe(2);
  });

  it('holds a group back while the running ones may still take the memory it needs, then starts it', async () => {
    const h = harness(2, 5000);
    const job = runInLanes(
      [
        { name: 'a', need: 3000 },
        { name: 'b', need: 3000 },
      ],
      h.plan,
    );
    await h.end('a');
    await h.end('b');
    await job;
    expect(h.log).toEqual(['start a', 'end a', 'start b', 'end b']);
  });

  it('refuses only a group the machine cannot hold alone, and says why', async () => {
    const h = harness(2, 5000);
    const job = runInLanes(
      [
        { name: 'a', need: 1000 },
        { name: 'huge', need: 9000 },
      ],
      h.plan,
    );
    await h.end('a');
    await job;
    expect(h.log).toEqual(['start a', 'end a', 'skip huge: huge needs 9000, 5000 left']);
  });

  it('starts nothing new once stopped, and marks the rest as stopped', async () => {
    const h = harness(1, 10_000);
    const job = runInLanes(
      [
        { name: 'a', need: 1 },
        { name: 'b', need: 1 },
      ],
      h.plan,
    );
    await h.whenStarted('a');
    h.stopNow();
    await h.end('a');
    await job;
    expect(h.log).toEqual(['start a', 'end a', 'skip b: stopped']);
  });

  it("rethrows a lane's failure only after the groups in flight ended, and starts no other", async () => {
    const h = harness(2, 10_000);
    const job = runInLanes(
      [
        { name: 'slow', need: 1 },
        { name: 'broken', need: 1 },
        { name: 'later', need: 1 },
      ],
      h.plan,
    );
    let settled = false;
    const outcome = job.then(
      () => (settled = true),
      (error: unknown) => {
        settled = true;
        return error;
      },
    );
    await h.end('broken');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toBe(false);
    await h.end('slow');
    expect(await outcome).toEqual(new Error('broken would not start'));
    expect(h.log).toEqual(['start slow', 'start broken', 'end broken', 'skip later: stopped', 'end slow']);
  });
});
