import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isHarnessError } from '../errors.ts';
import { PortAllocator, releaseReservationsOf } from './ports.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ports-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('PortAllocator', () => {
  it('hands two runs disjoint ports and records who holds each', async () => {
    const dir = tempDir();
    const a = new PortAllocator(dir, '/run/a');
    const b = new PortAllocator(dir, '/run/b');
    const [portsA, portsB] = await Promise.all([a.allocate(40), b.allocate(40)]);
    expect(new Set([...portsA, ...portsB]).size).toBe(80);
    for (const port of portsA) {
      expect(port).toBeGreaterThanOrEqual(20000);
      expect(port).toBeLessThan(32768);
      expect(readFileSync(join(dir, String(port)), 'utf8')).toBe('/run/a');
    }
    a.releaseAll();
    expect(readdirSync(dir)).toHaveLength(40);
    expect(releaseReservationsOf(dir, '/run/b')).toBe(40);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a named port that another process listens on, naming it', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const allocator = new PortAllocator(tempDir(), '/run/c');
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
    const [port] = await new PortAllocator(dir, '/run/first').allocate(1);
    await expect(new PortAllocator(dir, '/run/second').reserveExact(port ?? 0, 'fault proxy API')).rejects.toThrow(
      /reserved by another cluster of this harness \(\/run\/first\)/,
    );
  });
});
