import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** `GET /ping` answers `Ok.` once a ClickHouse server accepts queries. */
export async function httpPing(url: string, timeoutMs = 1000): Promise<boolean> {
  try {
    const response = await fetch(new URL('/ping', url), { signal: AbortSignal.timeout(timeoutMs) });
    return response.ok && (await response.text()).startsWith('Ok');
  } catch {
    return false;
  }
}

/** Sends a ZooKeeper four-letter word and returns the reply ('' on any failure). */
export function fourLetterWord(host: string, port: number, word: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = '';
    const done = (value: string) => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(timeoutMs, () => done(''));
    socket.on('connect', () => socket.write(word));
    socket.on('data', (chunk) => (reply += chunk.toString('utf8')));
    socket.on('end', () => done(reply));
    socket.on('error', () => done(''));
  });
}

export async function keeperHealthy(host: string, port: number): Promise<boolean> {
  if ((await fourLetterWord(host, port, 'ruok')) !== 'imok') return false;
  // `imok` only says the process runs; a member of an ensemble without quorum is not serving.
  const stat = await fourLetterWord(host, port, 'srvr');
  return stat.includes('Mode:');
}

/** A Keeper member's part in its ensemble, from `srvr` (ZooKeeper and ClickHouse Keeper both answer it). */
export type KeeperRole = 'leader' | 'follower' | 'standalone' | 'unreachable';

/** What `srvr` says a member is; a paused, dead or quorum-less member is `unreachable` (it serves nothing). */
export async function keeperRole(address: string, timeoutMs = 1000): Promise<KeeperRole> {
  const [host = '', port = ''] = address.split(':');
  const mode = /Mode: (\w+)/.exec(await fourLetterWord(host, Number(port), 'srvr', timeoutMs))?.[1];
  return mode === 'leader' || mode === 'follower' || mode === 'standalone' ? mode : 'unreachable';
}

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  /** Stops waiting early with this message when the process died. */
  readonly abortIf?: () => string | undefined;
}

export async function waitUntil(what: string, check: () => Promise<boolean>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const aborted = options.abortIf?.();
    if (aborted !== undefined) throw new Error(aborted);
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what} was not healthy within ${options.timeoutMs} ms`);
    await sleep(options.intervalMs ?? 50);
  }
}
