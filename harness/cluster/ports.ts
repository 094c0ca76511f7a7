import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { createServer } from 'node:net';
import { HarnessError } from '../base/index.ts';

/**
 * Ports below the kernel's ephemeral range (32768+), so an outgoing connection never takes a
 * port between our check and the server's bind.
 */
const RANGE = { from: 20000, to: 32000 } as const;
const PROBE_HOSTS = ['127.0.0.1', '127.0.0.2'];
/** Client proxies listen on 127.10.<shard>.<replica>; probing a few of them covers the plan's addresses. */
const CLIENT_PROBE_HOSTS = ['127.10.1.1', '127.10.1.2', '127.10.2.1', '127.10.2.2'];

export function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function isFree(port: number): Promise<boolean> {
  for (const host of [...PROBE_HOSTS, ...CLIENT_PROBE_HOSTS]) if (!(await canBind(port, host))) return false;
  return true;
}

/**
 * Hands out ports to one run. Free means bindable on both loopback addresses AND not reserved
 * by another run of this harness: reservations are files created with O_EXCL, so two runs
 * starting at once never pick the same port.
 */
export class PortAllocator {
  private readonly held: number[] = [];

  constructor(
    private readonly reservationDir: string,
    private readonly owner: string,
  ) {
    mkdirSync(reservationDir, { recursive: true });
  }

  get reserved(): readonly number[] {
    return this.held;
  }

  async allocate(count: number): Promise<number[]> {
    const ports: number[] = [];
    for (let tries = 0; ports.length < count; tries++) {
      if (tries > 2000)
        throw new HarnessError('PORTS_EXHAUSTED', `could not find ${count} free ports in ${RANGE.from}-${RANGE.to}`);
      const port = RANGE.from + Math.floor(Math.random() * (RANGE.to - RANGE.from));
      if (!this.tryReserve(port)) continue;
      if (await this.keepIfFree(port)) ports.push(port);
    }
    return ports;
  }

  /** A port the user named: it must be free now, or the error says who holds it. */
  async reserveExact(port: number, purpose: string): Promise<number> {
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new HarnessError('PORT_INVALID', `${purpose} port ${String(port)} is not a port number (1-65535)`);
    }
    if (!this.tryReserve(port)) {
      const holder = readReservation(this.reservationDir, port);
      throw new HarnessError(
        'PORT_IN_USE',
        `${purpose} port ${port} is reserved by another cluster of this harness (${holder}); stop it or pick another port`,
      );
    }
    if (!(await this.keepIfFree(port))) {
      throw new HarnessError(
        'PORT_IN_USE',
        `${purpose} port ${port} is already in use on 127.0.0.1 by another process; free it or pick another port`,
      );
    }
    return port;
  }

  releaseAll(): void {
    for (const port of this.held.splice(0)) rmSync(join(this.reservationDir, String(port)), { force: true });
  }

  private tryReserve(port: number): boolean {
    if (this.held.includes(port)) return false;
    this.reclaimIfOrphaned(port);
    try {
      const fd = openSync(join(this.reservationDir, String(port)), 'wx');
      writeSync(fd, this.owner);
      closeSync(fd);
      this.held.push(port);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A reservation whose owner, a run directory, no longer exists was left by a run whose state
   * directory is gone (a test's temporary one, removed after a hard kill): nobody can release it.
   */
  private reclaimIfOrphaned(port: number): void {
    const owner = readReservation(this.reservationDir, port, '');
    if (owner !== '' && isAbsolute(owner) && !existsSync(owner))
      rmSync(join(this.reservationDir, String(port)), { force: true });
  }

  private async keepIfFree(port: number): Promise<boolean> {
    if (await isFree(port)) return true;
    this.held.splice(this.held.indexOf(port), 1);
    rmSync(join(this.reservationDir, String(port)), { force: true });
    return false;
  }
}

function readReservation(dir: string, port: number, unknown = 'unknown owner'): string {
  try {
    return readFileSync(join(dir, String(port)), 'utf8');
  } catch {
    return unknown;
  }
}

/** Reservations whose owner (a run directory) is gone or dead; removed by the reaper. */
export function releaseReservationsOf(reservationDir: string, owner: string): number {
  let released = 0;
  for (const entry of safeReaddir(reservationDir)) {
    if (readReservation(reservationDir, Number(entry)) === owner) {
      rmSync(join(reservationDir, entry), { force: true });
      released += 1;
    }
  }
  return released;
}

export function reservationOwners(reservationDir: string): Set<string> {
  return new Set(safeReaddir(reservationDir).map((entry) => readReservation(reservationDir, Number(entry))));
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
