import { fork, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Toxiproxy } from 'toxiproxy-node-client';
import { startToxiproxyServer } from '../server.ts';

/**
 * npm run bench:toxiproxy — one run measuring the no-toxic cost of the proxy:
 *  - throughput of 1 MiB transfers, proxied vs direct loopback (target >= 80 %),
 *  - added median latency of a small request-response (target < 0.3 ms),
 *  - RSS and heap of the proxy before and after 10,000 short connections (must stay flat).
 * The proxy runs in a process of its own, as a real toxiproxy does; the in-process figures
 * (the proxy sharing the event loop with client and sink) are printed alongside.
 */

const MIB = 1024 * 1024;
const TRANSFERS = 100;
const ROUNDS = 5;
const PINGS = 1_000;
const SHORT_CONNECTIONS = 10_000;

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

function startHost(): Promise<{ child: ChildProcess; url: string; memory: () => Promise<Memory>; stop: () => Promise<void> }> {
  const child = fork(fileURLToPath(new URL('./proxy-host.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
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
    child,
    url,
    memory: () => request<Memory>('memory', 'memory'),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ command: 'stop' });
      }),
  }));
}


function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Runs every measure ROUNDS times, interleaved, and keeps the medians: the machine is shared. */
async function interleaved<K extends string>(measures: Record<K, () => Promise<number>>): Promise<Record<K, number>> {
  const samples = Object.fromEntries(Object.keys(measures).map((key) => [key, [] as number[]])) as unknown as Record<K, number[]>;
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const key of Object.keys(measures) as K[]) samples[key].push(await measures[key]());
  }
  return Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, median(values as number[])])) as Record<K, number>;
}

const mb = (bytes: number): string => `${(bytes / MIB).toFixed(1)} MiB`;
const pct = (ratio: number): string => `${(ratio * 100).toFixed(0)} %`;

async function main(): Promise<void> {
  const sink = sinkServer();
  const echo = echoServer();
  const sinkAddress = await listen(sink);
  const echoAddress = await listen(echo);

  const host = await startHost();
  const remote = new Toxiproxy(host.url);
  const sinkProxy = await remote.createProxy({ name: 'sink', listen: '127.0.0.1:0', upstream: sinkAddress });
  const echoProxy = await remote.createProxy({ name: 'echo', listen: '127.0.0.1:0', upstream: echoAddress });

  const local = await startToxiproxyServer({ port: 0, seed: 1 });
  const inProcess = new Toxiproxy(local.url);
  const localSink = await inProcess.createProxy({ name: 'sink', listen: '127.0.0.1:0', upstream: sinkAddress });
  const localEcho = await inProcess.createProxy({ name: 'echo', listen: '127.0.0.1:0', upstream: echoAddress });

  const acked = await interleaved({
    direct: () => throughput(sinkAddress, 'acked'),
    proxied: () => throughput(sinkProxy.listen, 'acked'),
    inProcess: () => throughput(localSink.listen, 'acked'),
  });
  const streamed = await interleaved({
    direct: () => throughput(sinkAddress, 'streamed'),
    proxied: () => throughput(sinkProxy.listen, 'streamed'),
    inProcess: () => throughput(localSink.listen, 'streamed'),
  });
  const rtt = await interleaved({
    direct: () => medianRoundTrip(echoAddress),
    proxied: () => medianRoundTrip(echoProxy.listen),
    inProcess: () => medianRoundTrip(localEcho.listen),
  });
  await local.stop();

  await shortConnections(echoProxy.listen); // warm-up: JIT, pools, lazily created structures
  const before = await host.memory();
  await shortConnections(echoProxy.listen);
  const after = await host.memory();
  await shortConnections(echoProxy.listen);
  const afterMore = await host.memory();

  await host.stop();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  await new Promise<void>((resolve) => echo.close(() => resolve()));

  const result = {
    throughputMBps: {
      acked: { ...acked, ratio: acked.proxied / acked.direct, ratioInProcess: acked.inProcess / acked.direct },
      streamed: { ...streamed, ratio: streamed.proxied / streamed.direct, ratioInProcess: streamed.inProcess / streamed.direct },
    },
    medianRoundTripMs: { ...rtt, added: rtt.proxied - rtt.direct, addedInProcess: rtt.inProcess - rtt.direct },
    proxyMemory: {
      connectionsPerStep: SHORT_CONNECTIONS,
      rss: [before.rss, after.rss, afterMore.rss],
      heapUsed: [before.heapUsed, after.heapUsed, afterMore.heapUsed],
    },
    targets: {
      throughputRatioAtLeast80: { acked: acked.proxied / acked.direct >= 0.8, streamed: streamed.proxied / streamed.direct >= 0.8 },
      addedLatencyBelow0_3ms: rtt.proxied - rtt.direct < 0.3,
      heapFlat: afterMore.heapUsed - before.heapUsed < 2 * MIB,
    },
  };

  const rows: Array<[string, string, string, string]> = [
    ['', 'direct', 'proxy process', 'proxy in-process'],
    ['1 MiB acked (MB/s)', acked.direct.toFixed(0), `${acked.proxied.toFixed(0)} (${pct(acked.proxied / acked.direct)})`, `${acked.inProcess.toFixed(0)} (${pct(acked.inProcess / acked.direct)})`],
    ['1 MiB streamed (MB/s)', streamed.direct.toFixed(0), `${streamed.proxied.toFixed(0)} (${pct(streamed.proxied / streamed.direct)})`, `${streamed.inProcess.toFixed(0)} (${pct(streamed.inProcess / streamed.direct)})`],
    ['median RTT 64 B (ms)', rtt.direct.toFixed(3), `${rtt.proxied.toFixed(3)} (+${(rtt.proxied - rtt.direct).toFixed(3)})`, `${rtt.inProcess.toFixed(3)} (+${(rtt.inProcess - rtt.direct).toFixed(3)})`],
    ['proxy RSS 0/10k/20k conns', '', `${mb(before.rss)} / ${mb(after.rss)} / ${mb(afterMore.rss)}`, ''],
    ['proxy heap 0/10k/20k conns', '', `${mb(before.heapUsed)} / ${mb(after.heapUsed)} / ${mb(afterMore.heapUsed)}`, ''],
  ];
  const widths = [0, 1, 2, 3].map((column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  for (const row of rows) process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()}\n`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
