import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  isAlive,
  processMemory,
  processStartTime,
  processState,
  signalProcess,
  spawnLocal,
  terminate,
  waitGone,
} from './local-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'local-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('local processes', () => {
  it('tracks a process through pause, resume and SIGKILL', async () => {
    const { record } = spawnLocal({
      name: 'sleeper',
      command: 'sleep',
      args: ['30'],
      cwd: dir,
      logFile: join(dir, 'sleeper.log'),
    });
    expect(processState(record)).toBe('running');
    signalProcess(record, 'SIGSTOP');
    await expect.poll(() => processState(record)).toBe('paused');
    signalProcess(record, 'SIGCONT');
    await expect.poll(() => processState(record)).toBe('running');
    signalProcess(record, 'SIGKILL');
    expect(await waitGone(record, 5000)).toBe(true);
    expect(signalProcess(record, 'SIGKILL')).toBe(false);
  });

  it('never treats a recycled pid as its process', () => {
    const impostor = { pid: process.pid, startTime: 'not-our-start-time' };
    expect(isAlive(impostor)).toBe(false);
    expect(processMemory(impostor)).toBeUndefined();
  });

  it('reads current and peak RSS of a live process', () => {
    const self = { pid: process.pid, startTime: processStartTime(process.pid) ?? '' };
    const rssMiB = process.memoryUsage().rss / 2 ** 20;
    const memory = processMemory(self);
    expect(memory?.rssMiB).toBeGreaterThan(rssMiB * 0.5);
    expect(memory?.rssMiB).toBeLessThan(rssMiB * 2);
    expect(memory?.peakRssMiB).toBeGreaterThanOrEqual(memory?.rssMiB ?? Number.POSITIVE_INFINITY);
  });

  it('terminates a paused process and captures its output in the log file', async () => {
    const { record } = spawnLocal({
      name: 'echo',
      command: 'sh',
      args: ['-c', 'echo started; exec sleep 30'],
      cwd: dir,
      logFile: join(dir, 'echo.log'),
    });
    await expect.poll(() => readFileSync(record.logFile, 'utf8')).toContain('started');
    signalProcess(record, 'SIGSTOP');
    await terminate(record, 'SIGTERM', 2000);
    expect(isAlive(record)).toBe(false);
  });
});
