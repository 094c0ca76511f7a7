import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Toxiproxy } from 'toxiproxy-node-client';
import { PROXY_ALLOCATOR_ENV } from '../../../harness/cluster/proxy-process-env.ts';
import { realToxiproxyBinary } from '../../../harness/cluster/real-toxiproxy/real-toxiproxy.ts';
import { startToxiproxyServer, type StartedToxiproxyServer } from '../server.ts';
import { startRealServer } from '../test-support.ts';

/**
 * npm run bench:toxiproxy — one run measuring the no-toxic cost of the proxy:
 *  - throughput of 1 MiB transfers, proxied vs direct loopback (target >= 80 %),
 *  - added median latency of a small request-response (target < 0.3 ms),
 *  - RSS and heap of the proxy before and after 10,000 short connections (must stay flat).
 * The proxy runs in a process of its own, as a real toxiproxy does, with the allocator settings
 * the harness gives it; the same proxy with glibc's default allocator settings and the in-process
 * server (sharing the event loop with client and sink) are measured alongside, in the same rounds,
 * and so is the real Toxiproxy (Go), when `scripts/setup.sh` built it.
 */

const MIB = 1024 * 1024;
const TRANSFERS = 100;
const ROUNDS = 11;
const PINGS = 1_000;
const SHORT_CONNECTIONS = 10_000;

interface ProxyHost {
  readonly url: string;
  memory(): Promise<Memory>;
  /** Minor page faults of the proxy process so far. */
  faults(): Promise<number>;
  stop(): Promise<void>;
}

interface Memory {
  rss: number;
  heapUsed: number;
}

/** Counts bytes and answers one byte per MiB received (the sink of the throughput test). */
function sinkServer(): Server {
  return createServer((socket) => {
    socket.setNoDelay(true);
    let pending = 0;
    socket.on('data', (data: Buffer) => {
      pending += data.length;
      while (pending >= MIB) {
        pending -= MIB;
        socket.write('k');
      }
    });
    socket.on('error', () => {});
  });
}

function echoServer(): Server {
  return createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => socket.write(data));
    socket.on('error', () => {});
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function open(address: string): Promise<Socket> {
  const colon = address.lastIndexOf(':');
  const socket = connect({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)), noDelay: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

/** Resolves after `count` bytes arrived on `socket`. */
function expectBytes(socket: Socket, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onData = (data: Buffer): void => {
      seen += data.length;
      if (seen >= count) {
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
  });
}

/**
 * MB/s of TRANSFERS 1 MiB transfers over one connection: `acked` waits for the sink's
 * acknowledgement of each MiB before sending the next (latency counts), `streamed` keeps
 * writing under back-pressure and waits for the last acknowledgement (bulk throughput).
 */
async function throughput(address: string, mode: 'acked' | 'streamed'): Promise<number> {
  const socket = await open(address);
  const block = Buffer.alloc(MIB, 0x61);
  const acked = async (): Promise<void> => {
    const ack = expectBytes(socket, 1);
    socket.write(block);
    await ack;
  };
  for (let i = 0; i < 5; i += 1) await acked();
  const start = performance.now();
  if (mode === 'acked') {
    for (let i = 0; i < TRANSFERS; i += 1) await acked();
  } else {
    const all = expectBytes(socket, TRANSFERS);
    for (let i = 0; i < TRANSFERS; i += 1) {
      if (!socket.write(block)) await new Promise((resolve) => socket.once('drain', resolve));
    }
    await all;
  }
  const seconds = (performance.now() - start) / 1000;
  socket.destroy();
  return (TRANSFERS * MIB) / seconds / 1e6;
}

/** Median round trip in ms of a 64-byte request echoed back. */
async function medianRoundTrip(address: string): Promise<number> {
  const socket = await open(address);
  const request = Buffer.alloc(64, 0x62);
  const samples: number[] = [];
  for (let i = 0; i < PINGS + 200; i += 1) {
    const start = performance.now();
    const answered = expectBytes(socket, request.length);
    socket.write(request);
    await answered;
    if (i >= 200) samples.push(performance.now() - start);
  }
  socket.destroy();
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
}

/** SHORT_CONNECTIONS connect / write / read / close cycles, 50 at a time. */
async function shortConnections(address: string): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < SHORT_CONNECTIONS) {
      next += 1;
      const socket = await open(address);
      const answered = expectBytes(socket, 16);
      socket.write('0123456789abcdef');
      await answered;
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.end();
      });
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
}

/** The bench itself runs with the proxy's allocator settings; `tuned: false` takes them away again. */
function startHost(tuned: boolean): Promise<ProxyHost> {
  const env: Record<string, string | undefined> = { ...process.env, ...PROXY_ALLOCATOR_ENV };
  if (!tuned) for (const key of Object.keys(PROXY_ALLOCATOR_ENV)) delete env[key];
  const child = fork(fileURLToPath(new URL('./proxy-host.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const request = <T>(command: string, key: string): Promise<T> =>
    new Promise((resolve) => {
      const onMessage = (message: Record<string, unknown>): void => {
        if (key in message) {
          child.off('message', onMessage);
          resolve(message[key] as T);
        }
      };
      child.on('message', onMessage);
      if (command !== '') child.send({ command });
    });
  return request<string>('', 'url').then((url) => ({
    url,
    memory: () => request<Memory>('memory', 'memory'),
    faults: () => request<number>('faults', 'faults'),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ command: 'stop' });
      }),
  }));
}

/** The real Toxiproxy, its RSS read from /proc; undefined, said once, when it is not built. */
async function startRealToxiproxy(): Promise<(StartedToxiproxyServer & { rss(): number }) | undefined> {
  let binary: string;
  try {
    binary = realToxiproxyBinary();
  } catch (error) {
    process.stderr.write(`real Toxiproxy not measured: ${(error as Error).message}\n`);
    return undefined;
  }
  const server = await startRealServer(binary, 1, false);
  return Object.assign(server, {
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024,
  });
}

interface SpliceRelays {
  readonly sink: string;
  readonly echo: string;
  stop(): void;
}

/** Builds splice-relay.c into a temporary directory and runs one relay per upstream; undefined without gcc. */
async function startSpliceRelays(sinkAddress: string, echoAddress: string): Promise<SpliceRelays | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'splice-relay-'));
  const binary = join(dir, 'splice-relay');
  try {
    execFileSync(
      'gcc',
      [
        '-O2',
        '-Wall',
        '-Wextra',
        '-Werror',
        '-pthread',
        '-o',
        binary,
        fileURLToPath(new URL('./splice-relay.c', import.meta.url)),
      ],
      { stdio: 'pipe' },
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    process.stderr.write(
      `splice ceiling not measured: gcc could not build splice-relay.c (${(error as Error).message.split('\n')[0]})\n`,
    );
    return undefined;
  }
  const relay = async (upstream: string) => {
    const child = spawn(binary, [upstream.slice(upstream.lastIndexOf(':') + 1)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const port = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (data: Buffer) => resolve(data.toString().trim()));
      child.once('exit', (code) => reject(new Error(`splice-relay exited with ${code}`)));
    });
    return { child, address: `127.0.0.1:${port}` };
  };
  const sink = await relay(sinkAddress);
  const echo = await relay(echoAddress);
  return {
    sink: sink.address,
    echo: echo.address,
    stop: () => {
      sink.child.kill('SIGKILL');
      echo.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

interface Quartiles {
  readonly median: number;
  readonly p25: number;
  readonly p75: number;
}

interface Figure {
  /** Median of the measured values. */
  readonly value: number;
  /** The per-round comparison with direct loopback and with the splice relay (the ceiling of any proxy hop). */
  readonly versusDirect: Quartiles;
  readonly versusSplice: Quartiles;
}

type Way = 'direct' | 'proxied' | 'defaultAllocator' | 'inProcess' | 'real' | 'splice';

/**
 * Runs every way ROUNDS times, in a rotating order, and compares each with the direct and the
 * splice sample of the same round (a ratio, or a difference for latencies). Pairing within a
 * round keeps the machine's drift (other tenants, frequency changes) out of the comparison.
 */
async function paired(
  ways: Record<Way, () => Promise<number>>,
  compare: (way: number, base: number) => number,
): Promise<Record<Way, Figure>> {
  const keys = Object.keys(ways) as Way[];
  const rounds: Array<Map<Way, number>> = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const sample = new Map<Way, number>();
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[(round + i) % keys.length] as Way;
      sample.set(key, await ways[key]());
    }
    rounds.push(sample);
  }
  const at = (sample: Map<Way, number>, key: Way): number => sample.get(key) ?? Number.NaN;
  const quartiles = (values: number[]): Quartiles => ({
    median: quantile(values, 0.5),
    p25: quantile(values, 0.25),
    p75: quantile(values, 0.75),
  });
  const figure = (key: Way): Figure => ({
    value: quantile(
      rounds.map((sample) => at(sample, key)),
      0.5,
    ),
    versusDirect: quartiles(rounds.map((sample) => compare(at(sample, key), at(sample, 'direct')))),
    versusSplice: quartiles(rounds.map((sample) => compare(at(sample, key), at(sample, 'splice')))),
  });
  return Object.fromEntries(keys.map((key) => [key, figure(key)])) as Record<Way, Figure>;
}

const mb = (bytes: number): string => `${(bytes / MIB).toFixed(1)} MiB`;
const pct = (ratio: number): string => `${(ratio * 100).toFixed(0)} %`;
const ratioCell = (figure: Figure): string =>
  Number.isNaN(figure.value)
    ? 'not measured'
    : `${figure.value.toFixed(0)} (${pct(figure.versusDirect.median)}, IQR ${pct(figure.versusDirect.p25)}-${pct(figure.versusDirect.p75)})`;
const addedCell = (figure: Figure): string =>
  Number.isNaN(figure.value)
    ? 'not measured'
    : `${figure.value.toFixed(3)} (+${figure.versusDirect.median.toFixed(3)})`;

async function main(): Promise<void> {
  const sink = sinkServer();
  const echo = echoServer();
  const sinkAddress = await listen(sink);
  const echoAddress = await listen(echo);

  if (Object.entries(PROXY_ALLOCATOR_ENV).some(([key, value]) => process.env[key] !== value)) {
    process.stderr.write(
      'warning: run through `npm run bench:toxiproxy`: without the allocator settings the direct baseline itself page-faults and is too low\n',
    );
  }
  const tuned = await startHost(true);
  const untuned = await startHost(false);
  const splice = await startSpliceRelays(sinkAddress, echoAddress);
  const local = await startToxiproxyServer({ port: 0, seed: 1 });
  const realServer = await startRealToxiproxy();
  const proxiesOf = async (url: string): Promise<{ sink: string; echo: string }> => {
    const api = new Toxiproxy(url);
    const sinkProxy = await api.createProxy({ name: 'sink', listen: '127.0.0.1:0', upstream: sinkAddress });
    const echoProxy = await api.createProxy({ name: 'echo', listen: '127.0.0.1:0', upstream: echoAddress });
    return { sink: sinkProxy.listen, echo: echoProxy.listen };
  };
  const proxied = await proxiesOf(tuned.url);
  const defaultAllocator = await proxiesOf(untuned.url);
  const inProcess = await proxiesOf(local.url);
  const real = realServer === undefined ? undefined : await proxiesOf(realServer.url);

  const ratio = (way: number, direct: number): number => way / direct;
  const added = (way: number, direct: number): number => way - direct;
  const spliceWay = (
    measure: (address: string) => Promise<number>,
    address: string | undefined,
  ): (() => Promise<number>) => (address === undefined ? () => Promise.resolve(Number.NaN) : () => measure(address));
  const throughputs = (mode: 'acked' | 'streamed') =>
    paired(
      {
        direct: () => throughput(sinkAddress, mode),
        proxied: () => throughput(proxied.sink, mode),
        defaultAllocator: () => throughput(defaultAllocator.sink, mode),
        inProcess: () => throughput(inProcess.sink, mode),
        real: spliceWay((address) => throughput(address, mode), real?.sink),
        splice: spliceWay((address) => throughput(address, mode), splice?.sink),
      },
      ratio,
    );
  const acked = await throughputs('acked');
  const streamed = await throughputs('streamed');
  const rtt = await paired(
    {
      direct: () => medianRoundTrip(echoAddress),
      proxied: () => medianRoundTrip(proxied.echo),
      defaultAllocator: () => medianRoundTrip(defaultAllocator.echo),
      inProcess: () => medianRoundTrip(inProcess.echo),
      real: spliceWay(medianRoundTrip, real?.echo),
      splice: spliceWay(medianRoundTrip, splice?.echo),
    },
    added,
  );
  splice?.stop();
  await local.stop();
  const faultsPerMiB = async (host: ProxyHost, address: string): Promise<number> => {
    const before = await host.faults();
    await throughput(address, 'streamed');
    return ((await host.faults()) - before) / (TRANSFERS + 5);
  };
  const pageFaultsPerMiB = {
    proxied: await faultsPerMiB(tuned, proxied.sink),
    defaultAllocator: await faultsPerMiB(untuned, defaultAllocator.sink),
  };
  await untuned.stop();

  await shortConnections(proxied.echo); // warm-up: JIT, pools, lazily created structures
  const before = await tuned.memory();
  await shortConnections(proxied.echo);
  const after = await tuned.memory();
  await shortConnections(proxied.echo);
  const afterMore = await tuned.memory();

  await tuned.stop();
  const realRss: number[] = [];
  if (realServer !== undefined && real !== undefined) {
    await shortConnections(real.echo);
    realRss.push(realServer.rss());
    await shortConnections(real.echo);
    realRss.push(realServer.rss());
    await shortConnections(real.echo);
    realRss.push(realServer.rss());
  }
  await realServer?.stop();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  await new Promise<void>((resolve) => echo.close(() => resolve()));

  const result = {
    rounds: ROUNDS,
    transferMiB: TRANSFERS,
    throughputMBps: { acked, streamed },
    medianRoundTripMs: rtt,
    pageFaultsPerMiB,
    proxyMemory: {
      connectionsPerStep: SHORT_CONNECTIONS,
      rss: [before.rss, after.rss, afterMore.rss],
      heapUsed: [before.heapUsed, after.heapUsed, afterMore.heapUsed],
    },
    realToxiproxyRss: realRss,
    targets: {
      throughputRatioAtLeast80: {
        acked: acked.proxied.versusDirect.median >= 0.8,
        streamed: streamed.proxied.versusDirect.median >= 0.8,
      },
      addedLatencyBelow0_3ms: rtt.proxied.versusDirect.median < 0.3,
      heapFlat: afterMore.heapUsed - before.heapUsed < 2 * MIB,
    },
  };

  const rows: string[][] = [
    [
      '',
      'direct',
      'proxy process',
      'proxy, default allocator',
      'proxy in-process',
      'real Toxiproxy',
      'splice relay (ceiling)',
    ],
    [
      '1 MiB acked (MB/s)',
      acked.direct.value.toFixed(0),
      ...(['proxied', 'defaultAllocator', 'inProcess', 'real', 'splice'] as const).map((way) => ratioCell(acked[way])),
    ],
    [
      '1 MiB streamed (MB/s)',
      streamed.direct.value.toFixed(0),
      ...(['proxied', 'defaultAllocator', 'inProcess', 'real', 'splice'] as const).map((way) =>
        ratioCell(streamed[way]),
      ),
    ],
    [
      'median RTT 64 B (ms)',
      rtt.direct.value.toFixed(3),
      ...(['proxied', 'defaultAllocator', 'inProcess', 'real', 'splice'] as const).map((way) => addedCell(rtt[way])),
    ],
    [
      'proxy process vs splice relay',
      '',
      `acked ${pct(acked.proxied.versusSplice.median)}, streamed ${pct(streamed.proxied.versusSplice.median)}, RTT +${rtt.proxied.versusSplice.median.toFixed(3)} ms`,
    ],
    [
      'proxy page faults per MiB',
      '',
      pageFaultsPerMiB.proxied.toFixed(1),
      pageFaultsPerMiB.defaultAllocator.toFixed(1),
    ],
    ['proxy RSS 0/10k/20k conns', '', `${mb(before.rss)} / ${mb(after.rss)} / ${mb(afterMore.rss)}`],
    ['proxy heap 0/10k/20k conns', '', `${mb(before.heapUsed)} / ${mb(after.heapUsed)} / ${mb(afterMore.heapUsed)}`],
    [
      'real Toxiproxy RSS 10k/20k/30k conns',
      '',
      '',
      '',
      '',
      realRss.length === 0 ? 'not measured' : realRss.map(mb).join(' / '),
    ],
    [
      'proxy process vs real Toxiproxy',
      '',
      real === undefined
        ? 'not measured'
        : `acked ${pct(acked.proxied.value / acked.real.value)}, streamed ${pct(streamed.proxied.value / streamed.real.value)}, RTT ${(rtt.proxied.value - rtt.real.value).toFixed(3)} ms`,
    ],
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  for (const row of rows)
    process.stdout.write(
      `${row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd()}\n`,
    );
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
