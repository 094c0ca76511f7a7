import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Toxiproxy } from 'toxiproxy-node-client';
import { describe, expect, it } from 'vitest';
import { startToxiproxyServer } from './server.ts';
import { connectOutcome, connectPeer, Upstream } from './test-support.ts';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));

interface Run {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

function runCli(args: string[]): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr?.on('data', (data: Buffer) => (stderr += data.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function firstLine(run: Run): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (!run.stdout().includes('\n')) {
    if (Date.now() > deadline || run.child.exitCode !== null) throw new Error(`no URL line; stderr: ${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return run.stdout().split('\n')[0] ?? '';
}

describe('npm run toxiproxy (cli.ts)', () => {
  it('prints one line with the URL, serves the API with --config (and /metrics with -proxy-metrics), and exits 0 on SIGTERM', async () => {
    await using upstream = await Upstream.start({ echo: true });
    const dir = await mkdtemp(join(tmpdir(), 'toxiproxy-cli-'));
    const config = join(dir, 'proxies.json');
    await writeFile(config, JSON.stringify([{ name: 'echo', listen: '127.0.0.1:0', upstream: upstream.address }]));
    const run = runCli(['--host', '127.0.0.1', '--port', '0', '--seed', '7', '--config', config, '-proxy-metrics']);
    try {
      const line = await firstLine(run);
      const url = /(http:\/\/[\d.]+:\d+)/.exec(line)?.[1];
      expect(url).toBeDefined();
      expect(line).toContain('seed=7');
      const proxy = await new Toxiproxy(url ?? '').get('echo');
      await using client = await connectPeer(proxy.listen);
      client.write('via cli');
      expect((await client.waitForBytes(7)).data.toString()).toBe('via cli');
      expect(await (await fetch(`${url ?? ''}/metrics`)).text()).toContain('toxiproxy_proxy_received_bytes_total{');
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      await client.waitClosed(1_000);
      expect(await connectOutcome(proxy.listen)).toBe('ECONNREFUSED');
      expect(run.stdout().trim().split('\n')).toHaveLength(1);
    } finally {
      run.child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects a bad flag with one line on stderr and a non-zero exit', async () => {
    const run = runCli(['--port', 'eighty']);
    expect(await run.exited).not.toBe(0);
    expect(run.stderr().trim().split('\n')).toHaveLength(1);
    expect(run.stderr()).toContain('--port');
    const unknown = runCli(['--bogus']);
    expect(await unknown.exited).not.toBe(0);
    expect(unknown.stderr().trim().split('\n')).toHaveLength(1);
  });

  it('rejects an unreadable config and a taken API port', async () => {
    const missing = runCli(['--port', '0', '--config', '/nonexistent/proxies.json']);
    expect(await missing.exited).not.toBe(0);
    expect(missing.stderr()).toContain('/nonexistent/proxies.json');
    expect(missing.stderr().trim().split('\n')).toHaveLength(1);

    await using taken = await startToxiproxyServer({ port: 0 });
    const busy = runCli(['-port', String(taken.port)]);
    expect(await busy.exited).not.toBe(0);
    expect(busy.stderr()).toContain('TOXIPROXY_PORT_IN_USE');
    expect(busy.stderr().trim().split('\n')).toHaveLength(1);
  });
});
