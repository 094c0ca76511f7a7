import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A process this harness started, identified by pid AND kernel start time, so a recycled pid
 * is never mistaken for ours (and never signalled).
 */
export interface ProcessRecord {
  readonly name: string;
  readonly pid: number;
  readonly startTime: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly logFile: string;
}

export type ProcessState = 'running' | 'paused' | 'dead';

function readStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; the fields after its closing paren are fixed.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

export function processStartTime(pid: number): string | undefined {
  return readStat(pid)?.[19];
}

export function processState(record: Pick<ProcessRecord, 'pid' | 'startTime'>): ProcessState {
  const fields = readStat(record.pid);
  if (fields === undefined || fields[19] !== record.startTime) return 'dead';
  const state = fields[0];
  if (state === 'Z' || state === 'X') return 'dead';
  return state === 'T' || state === 't' ? 'paused' : 'running';
}

export function isAlive(record: Pick<ProcessRecord, 'pid' | 'startTime'>): boolean {
  return processState(record) !== 'dead';
}

export interface ProcessMemory {
  readonly rssMiB: number;
  /** The process's peak resident set since it started (VmHWM). */
  readonly peakRssMiB: number;
}

/** Current and peak RSS of a recorded process; undefined when it is gone (or its pid is someone else's now). */
export function processMemory(record: Pick<ProcessRecord, 'pid' | 'startTime'>): ProcessMemory | undefined {
  if (!isAlive(record)) return undefined;
  let status: string;
  try {
    status = readFileSync(`/proc/${record.pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string): number | undefined => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    return match ? Number(match[1]) : undefined;
  };
  const rss = kib('VmRSS');
  const peak = kib('VmHWM');
  if (rss === undefined || peak === undefined) return undefined;
  return { rssMiB: Math.round(rss / 1024), peakRssMiB: Math.round(peak / 1024) };
}

export interface SpawnOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly logFile: string;
}

export interface SpawnedProcess {
  readonly record: ProcessRecord;
  /** Present while the spawning process lives: resolves with the exit code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly child: ChildProcess;
}

/**
 * Starts a process in its own process group, output appended to its log file, not tied to the
 * lifetime of this Node process (a cluster outlives `cluster up`; the reaper is the backstop).
 */
export function spawnLocal(options: SpawnOptions): SpawnedProcess {
  const log = openSync(options.logFile, 'a');
  const env = { ...(options.env ?? {}) };
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  if (child.pid === undefined) {
    throw new Error(`could not start ${options.command}`);
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  child.unref();
  const startTime = processStartTime(child.pid) ?? 'unknown';
  return {
    child,
    exited,
    record: {
      name: options.name,
      pid: child.pid,
      startTime,
      command: options.command,
      args: options.args,
      env,
      cwd: options.cwd,
      logFile: options.logFile,
    },
  };
}

export function signalProcess(record: ProcessRecord, signal: NodeJS.Signals): boolean {
  if (!isAlive(record)) return false;
  try {
    process.kill(record.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM (or the given signal), then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function terminate(
  record: ProcessRecord,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 5000,
): Promise<void> {
  if (!isAlive(record)) return;
  // A stopped process cannot act on SIGTERM until it is continued.
  signalProcess(record, 'SIGCONT');
  signalProcess(record, signal);
  const deadline = Date.now() + graceMs;
  while (isAlive(record)) {
    if (Date.now() > deadline) {
      signalProcess(record, 'SIGKILL');
      await waitGone(record, 5000);
      return;
    }
    await sleep(25);
  }
}

export async function waitGone(record: ProcessRecord, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(record)) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

export function tailOfFile(path: string, lines = 8): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
