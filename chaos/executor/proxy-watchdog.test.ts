import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { watchFaultProxy } from './proxy-watchdog.ts';

async function versionServer() {
  const server = createServer((_, response) => response.end('2.12.0'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the run watching its fault proxy', () => {
  it('says nothing while the proxy answers, and names it once it stops answering', async () => {
    const proxy = await versionServer();
    const downs: string[] = [];
    const stop = watchFaultProxy(proxy.url, (error) => downs.push(error.message));
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(downs).toEqual([]);
    await proxy.close();
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    stop();
    expect(downs).toEqual([
      `the fault proxy at ${proxy.url} does not answer during the run: every link of the cluster runs through it`,
    ]);
  }, 15_000);

  it('watches nothing once stopped', async () => {
    const proxy = await versionServer();
    const downs: string[] = [];
    watchFaultProxy(proxy.url, (error) => downs.push(error.message))();
    await proxy.close();
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(downs).toEqual([]);
  }, 15_000);
});
