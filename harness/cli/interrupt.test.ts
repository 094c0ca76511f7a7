import { afterEach, describe, expect, it } from 'vitest';
import { alsoOnForcedStop, installInterrupt, interruptExitCode, type Interrupt } from './interrupt.ts';

describe('installInterrupt', () => {
  let interrupt: Interrupt | undefined;
  afterEach(() => interrupt?.dispose());

  const harness = (graceMs?: number, taskLimitMs?: number) => {
    const lines: string[] = [];
    const exits: number[] = [];
    let teardowns = 0;
    interrupt = installInterrupt({
      name: 'test',
      ...(graceMs === undefined ? {} : { graceMs }),
      ...(taskLimitMs === undefined ? {} : { taskLimitMs }),
      write: (line) => lines.push(line),
      exit: (code) => exits.push(code),
      teardown: async () => {
        teardowns += 1;
      },
    });
    return { lines, exits, teardowns: () => teardowns, interrupt };
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('aborts at the first signal and leaves the graceful path its grace period', async () => {
    const { lines, exits, teardowns, interrupt } = harness(10_000);
    process.emit('SIGTERM', 'SIGTERM');
    await settle();
    expect(interrupt.signal.aborted).toBe(true);
    expect(interrupt.received()).toBe('SIGTERM');
    expect(teardowns()).toBe(0);
    expect(exits).toEqual([]);
    expect(lines[0]).toMatch(/SIGTERM received; finishing the report/);
  });

  it("a second signal tears down and exits at once with the first signal's status", async () => {
    const { exits, teardowns } = harness(10_000);
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGTERM', 'SIGTERM');
    await settle();
    expect(teardowns()).toBe(1);
    expect(exits).toEqual([130]);
  });

  it('forces the stop when the grace period ends', async () => {
    const { exits, teardowns } = harness(5);
    process.emit('SIGTERM', 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(teardowns()).toBe(1);
    expect(exits).toEqual([143]);
  });

  it('the forced stop also runs the registered undo tasks, each bounded by its limit', async () => {
    const { lines, exits, teardowns } = harness(10_000, 50);
    const undone: string[] = [];
    const forget = [
      alsoOnForcedStop(async () => undone.push('the attached cluster’s journal')),
      alsoOnForcedStop(() => new Promise(() => undefined)),
    ];
    try {
      process.emit('SIGINT', 'SIGINT');
      process.emit('SIGINT', 'SIGINT');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(teardowns()).toBe(1);
      expect(undone).toEqual(['the attached cluster’s journal']);
      expect(exits).toEqual([130]);
      expect(lines.at(-1)).toMatch(/teardown failed: undoing what the run did did not finish within 50 ms/);
    } finally {
      for (const remove of forget) remove();
    }
  });

  it('an error nothing caught tears down at once, says so in one line, and exits 3', async () => {
    const { lines, exits, teardowns, interrupt } = harness(10_000);
    expect(process.listeners('uncaughtException')).toContain(interrupt.crash);
    interrupt.crash(new TypeError('op is not a function'));
    await settle();
    expect(interrupt.signal.aborted).toBe(true);
    expect(teardowns()).toBe(1);
    expect(exits).toEqual([3]);
    expect(lines).toEqual([
      'test: internal error, stopping: op is not a function',
      'test: stopping now; tearing down what this run started',
    ]);
    interrupt.dispose();
    expect(process.listeners('uncaughtException')).not.toContain(interrupt.crash);
  });

  it('with no graceful path, the first signal tears down at once', async () => {
    const { exits, teardowns } = harness(0);
    process.emit('SIGINT', 'SIGINT');
    await settle();
    expect(teardowns()).toBe(1);
    expect(exits).toEqual([130]);
  });

  it("settles to the normal status without a signal, and to the signal's after tearing down", async () => {
    const quiet = harness(10_000);
    expect(await quiet.interrupt.settle(1)).toBe(1);
    expect(quiet.teardowns()).toBe(0);
    const interrupted = harness(10_000);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await interrupted.interrupt.settle(0)).toBe(143);
    expect(interrupted.teardowns()).toBe(1);
  });

  it("a failure after a signal is the interrupt's: one teardown, the signal's status; without a signal it passes through", async () => {
    const { exits, teardowns, interrupt } = harness(0);
    await expect(interrupt.guard(Promise.reject(new Error('unrelated')))).rejects.toThrow('unrelated');
    expect(exits).toEqual([]);
    process.emit('SIGINT', 'SIGINT');
    await expect(interrupt.guard(Promise.reject(new Error('a child died')))).rejects.toThrow('a child died');
    expect(teardowns()).toBe(1);
    expect(exits).toEqual([130]);
  });

  it("maps signals to the shell's exit statuses", () => {
    expect(interruptExitCode('SIGINT')).toBe(130);
    expect(interruptExitCode('SIGTERM')).toBe(143);
  });
});
