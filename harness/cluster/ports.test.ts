import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isHarnessError } from '../base/index.ts';
import { PortAllocator, releaseReservationsOf } from './ports.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ports-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
/** A run directory that exists, as a live run's does (a reservation names its owner's). */
const runDir = (name: string) => {
  const dir = join(tempDir(), name);
  mkdirSync(dir);
  return dir;
};

describe('PortAllocator', () => {
  it('hands two runs disjoint ports and records who holds each', async () => {
    const dir = tempDir();
    const [runA, runB] = [runDir('a'), runDir('b')];
    const a = new PortAllocator(dir, runA);
    const b = new PortAllocator(dir, runB);
    const [portsA, portsB] = await Promise.all([a.allocate(40), b.allocate(40)]);
    expect(new Set([...portsA, ...portsB]).size).toBe(80);
    for (const port of portsA) {
      expect(port).toBeGreaterThanOrEqual(20000);
      expect(port).toBeLessThan(32768);
      expect(readFileSync(join(dir, String(port)), 'utf8')).toBe(runA);
    }
    a.releaseAll();
    expect(readdirSync(dir)).toHaveLength(40);
    expect(releaseReservationsOf(dir, runB)).toBe(40);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a named port that another process listens on, naming it', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const allocator = new PortAllocator(tempDir(), runDir('c'));
    try {
      await expect(allocator.reserveExact(port, 'fault proxy API')).rejects.toSatisfy(
        (error) =>
          isHarnessError(error, 'PORT_IN_USE') &&
          (error as Error).message.includes(`fault proxy API port ${port} is already in use`),
      );
      expect(allocator.reserved).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('refuses a named port reserved by another run of the harness', async () => {
    const dir = tempDir();
    const first = runDir('first');
    const [port] = await new PortAllocator(dir, first).allocate(1);
    await expect(new PortAllocator(dir, runDir('second')).reserveExact(port ?? 0, 'fault proxy API')).rejects.toThrow(
      `reserved by another cluster of this harness (${first})`,
    );
  });

  it('takes back a reservation whose owner directory is gone, and only such a one', async () => {
    const dir = tempDir();
    const gone = join(tempDir(), 'removed-run');
    const alive = runDir('alive');
    for (let port = 20000; port < 32000; port++) writeFileSync(join(dir, String(port)), port % 2 === 0 ? gone : alive);
    const ports = await new PortAllocator(dir, runDir('next')).allocate(5);
    expect(ports.every((port) => port % 2 === 0)).toBe(true);
  });
});
