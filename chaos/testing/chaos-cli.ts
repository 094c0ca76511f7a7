import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readClusterState, stateProcesses } from '../../harness/cluster/cluster-state.ts';
import type { ProcessRecord } from '../../harness/cluster/process/local-process.ts';
import { PROJECT_ROOT } from '../../harness/base/index.ts';

export interface StartedChaos {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly stdout: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/**
 * The real chaos CLI in its own process group, as a terminal or a CI runner starts it, with its
 * own cluster state and port reservations under `stateDir` (so a test can see each released).
 */
export function startChaos(args: readonly string[], stateDir: string): StartedChaos {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(PROJECT_ROOT, 'chaos/cli.ts'), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, CHAOS_STATE_DIR: stateDir, CHAOS_PORTS_DIR: join(stateDir, 'ports') },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolvePromise) => {
    child.once('exit', (code, signal) => resolvePromise({ code, signal, at: Date.now() }));
  });
  return { child, stderr: () => stderr, stdout: () => stdout, exited };
}

export async function waitFor(what: string, condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 200));
  }
}

/**
 * The run's exit within `timeoutMs`, or an error carrying the end of what it printed: a run that
 * hangs says where, instead of the test's own timeout saying nothing.
 */
export async function exitWithin(
  run: StartedChaos,
  timeoutMs: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the run did not exit within ${timeoutMs} ms; it printed:\n${run.stderr().slice(-6000)}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([run.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every process the cluster registered under `stateDir` names, read while it is up (the only one there). */
export function clusterProcesses(stateDir: string): { dir: string; processes: ProcessRecord[] } {
  const registry = join(stateDir, 'registry');
  const [runId] = readdirSync(registry);
  if (runId === undefined) throw new Error('no registered cluster run');
  const dir = readlinkSync(join(registry, runId));
  return { dir, processes: stateProcesses(readClusterState(dir)) };
}
