import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import type { History } from '../../harness/flow/history/index.ts';
import { endRun } from './end-run.ts';
import { RunWorkers, type SettlingSystem } from './run-workers.ts';

// The cleanup every run ends with, whatever phase it stopped in: workers first, then the undo
// (its database last), never skipped because something before it failed.

function recorder() {
  const steps: string[] = [];
  const log = {
    warn: (_: unknown, message: string) => steps.push(`warn: ${message}`),
    error: (_: unknown, message: string) => steps.push(`error: ${message}`),
  } as unknown as Logger;
  const system: SettlingSystem = {
    finish: async () => {
      steps.push('settled');
      return { events: [] } as unknown as History;
    },
    closeHistory: () => steps.push('history closed'),
  };
  const undo = (fails?: string) => ({
    stop: async (reason: string) => {
      steps.push(`undo: ${reason}`);
      if (fails !== undefined) throw new Error(fails);
    },
  });
  return { steps, log, system, undo };
}

describe('the end of a run', () => {
  it('stops the workers of a run stopped mid-schedule, then undoes what it did, with the reason', async () => {
    const { steps, log, system, undo } = recorder();
    const workers = new RunWorkers(log);
    workers.supervising({ close: async () => steps.push('workers closed') });
    workers.running(system);
    expect(await endRun(workers, undo(), 'run stopped: SIGINT', log)).toBe('run stopped: SIGINT');
    expect(steps).toEqual(['history closed', 'workers closed', 'undo: run stopped: SIGINT']);
  });

  it('does not close again the workers a settled run stopped itself; the undo still runs', async () => {
    const { steps, log, system, undo } = recorder();
    const workers = new RunWorkers(log);
    workers.supervising({ close: async () => steps.push('workers closed') });
    workers.running(system);
    await workers.settle();
    expect(await endRun(workers, undo(), undefined, log)).toBeUndefined();
    expect(steps).toEqual(['settled', 'history closed', 'undo: the run ended']);
  });

  it('a failed settle leaves its workers to the cleanup', async () => {
    const { steps, log, undo } = recorder();
    const workers = new RunWorkers(log);
    workers.supervising({ close: async () => steps.push('workers closed') });
    workers.running({
      finish: () => Promise.reject(new Error('the final drain did not finish')),
      closeHistory: () => steps.push('history closed'),
    });
    await expect(workers.settle()).rejects.toThrow('final drain');
    await endRun(workers, undo(), 'the final drain did not finish', log);
    expect(steps).toEqual(['history closed', 'workers closed', 'undo: the final drain did not finish']);
  });

  it('workers that will not close are given up on within the bound, and the undo still runs', async () => {
    const { steps, log, undo } = recorder();
    const workers = new RunWorkers(log, 50);
    workers.supervising({ close: () => new Promise(() => undefined) });
    expect(await endRun(workers, undo(), undefined, log)).toBeUndefined();
    expect(steps).toEqual(['warn: closing the sink workers failed', 'undo: the run ended']);
  });

  it('an undo that fails is a harness failure, added to the one the run had', async () => {
    const { steps, log, undo } = recorder();
    const workers = new RunWorkers(log);
    expect(await endRun(workers, undo('proxy a kept its toxic'), undefined, log)).toBe('proxy a kept its toxic');
    expect(await endRun(workers, undo('database kept'), 'the cluster failed', log)).toBe(
      'the cluster failed; database kept',
    );
    expect(steps.filter((step) => step.startsWith('error'))).toEqual([
      'error: undoing what the run did failed',
      'error: undoing what the run did failed',
    ]);
  });
});
